import { type Command, CommanderError } from "commander";
import { type CliStreams, withCliStreams } from "./commands/cli-streams.js";
import { reportCliError } from "./commands/report-cli-error.js";
import { createProgram } from "./create-program.js";

export type { CliStreams } from "./commands/cli-streams.js";

/**
 * Runs one `plant-store` command line (`process.argv.slice(2)`) and answers its exit code: 0, 2 for a
 * setting or an input to fix, 1 for anything else (commander's own usage errors included). Everything
 * the command prints, commander's help and errors included, goes to `streams`; the environment is
 * `process.env`. It never exits the process: `cli.js` does, with this code. A command that keeps running
 * (`serve`) has answered 0 once it started, and stops on its own signals.
 */
export async function main(
  args: readonly string[],
  streams: CliStreams = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  return withCliStreams(streams, async () => {
    try {
      const program = await createProgram(args);
      throwInsteadOfExit(program, streams);
      await program.parseAsync([...args], { from: "user" });
      return 0;
    } catch (error) {
      // Help, a version or a usage error: commander has printed it and names the code it would exit with.
      if (error instanceof CommanderError) return error.exitCode;
      return await reportCliError(error);
    }
  });
}

/** Commander exits the process by itself unless each command (added ones inherit nothing) is told not to. */
function throwInsteadOfExit(command: Command, streams: CliStreams): void {
  command.exitOverride().configureOutput({
    writeOut: (text) => streams.stdout.write(text),
    writeErr: (text) => streams.stderr.write(text),
  });
  for (const subcommand of command.commands) throwInsteadOfExit(subcommand, streams);
}
