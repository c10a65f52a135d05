import { Command, Help } from "commander";
import { invokedCommandName } from "./commands/invoked-command-name.js";
import { STORE_COMMANDS } from "./commands/store-commands.js";

/**
 * The `plant-store` program for these arguments (`process.argv.slice(2)`). Only the command they name
 * is loaded whole; every other one is a name and a description for `--help`, so a command starts
 * without the modules (and the dependencies: zod, koa, pino, prom-client, got) of the others.
 * `loadAll` builds the whole tree, as the program was before commands were loaded lazily.
 */
export async function createProgram(
  args: readonly string[],
  options: { loadAll?: boolean } = {},
): Promise<Command> {
  const wanted = invokedCommandName(args);
  // A command not loaded has no options or arguments of its own to show: its term comes from the list.
  const stubTerms = new Map<Command, string>();
  const program = new Command("plant-store")
    .description("The Plant Store: adds plants and delivers New Plant webhooks to subscribed receivers")
    .showHelpAfterError()
    .configureHelp({
      subcommandTerm(this: Help, command: Command) {
        return stubTerms.get(command) ?? Help.prototype.subcommandTerm.call(this, command);
      },
    })
    // Loaded only when a command runs, never for --help (zod is a tenth of a second to load).
    .hook("preAction", async (thisCommand, actionCommand) => {
      const { resolveJsonFlag } = await import("./commands/resolve-json-flag.js");
      resolveJsonFlag(thisCommand, actionCommand);
    });
  for (const command of STORE_COMMANDS) {
    if (options.loadAll === true || command.name === wanted) {
      program.addCommand(await command.load());
    } else {
      const stub = new Command(command.name).description(command.description);
      stubTerms.set(stub, command.term);
      program.addCommand(stub);
    }
  }
  return program;
}
