import { readFile, writeFile } from "node:fs/promises";
import { dirname, relative } from "node:path";
import { Command, CommanderError } from "commander";
import type { CommandContext } from "./commands/command-context.js";
import { deliveriesCommand } from "./commands/deliveries-command.js";
import { endpointsCommand } from "./commands/endpoints-command.js";
import { listenCommand } from "./commands/listen-command.js";
import { messagesCommand } from "./commands/messages-command.js";
import { generateWebhookModule } from "./generate-webhook-module.js";
import { readDocument } from "./read-document.js";

export interface CliStreams {
  out: (text: string) => void;
  err: (text: string) => void;
}

export interface CliOptions {
  /** Stops `listen` (its endpoint removed) when aborted; absent, SIGINT or SIGTERM does. */
  signal?: AbortSignal;
}

const processStreams: CliStreams = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/** Errors that are the API's or the network's doing, not a setting to fix: exit 1. */
const API_ERRORS = new Set(["ERR_API", "ERR_API_UNREACHABLE", "ERR_LISTEN"]);

/**
 * `plant-webhooks <command>`; answers the exit code: 0 done, 1 a `--check` that found the file stale (or
 * missing), an API that refused or could not be reached, a handshake that did not pass; 2 a document, a
 * flag or a setting to fix (the message says which).
 */
export async function runCli(
  argv: readonly string[],
  streams: CliStreams = processStreams,
  options: CliOptions = {},
): Promise<number> {
  let exitCode = 0;
  const context: CommandContext = {
    streams,
    setExitCode: (code) => {
      exitCode = code;
    },
    signal: options.signal,
  };
  const program = new Command("plant-webhooks")
    .description(
      "Webhooks from an OpenAPI 3.1 document (generate types, schemas and a typed catalog), and a client of any service mounting the webhook API (listen, endpoints, messages, deliveries).",
    )
    .exitOverride()
    .configureOutput({ writeOut: streams.out, writeErr: streams.err });
  program
    .command("generate")
    .description("write zod schemas, TypeScript types and a typed catalog for every webhook of a document")
    .argument("<document>", "the OpenAPI 3.1 document (.json, .yaml or .yml)")
    .requiredOption("--out <file>", "the TypeScript module to write")
    .option("--check", "write nothing: exit 0 when --out matches the document, 1 when it is stale or missing")
    .action(async (path: string, options: { out: string; check?: boolean }) => {
      const document = await readDocument(path);
      const source = relative(dirname(options.out), path).replaceAll("\\", "/");
      const text = await generateWebhookModule(document, { source });
      if (options.check) {
        const current = await readFile(options.out, "utf8").catch(() => undefined);
        if (current === text) streams.out(`${options.out} is up to date with ${path}\n`);
        else {
          streams.err(
            `${options.out} is ${current === undefined ? "missing" : "stale"}: run plant-webhooks generate ${path} --out ${options.out}\n`,
          );
          exitCode = 1;
        }
        return;
      }
      await writeFile(options.out, text);
      streams.out(`Wrote ${options.out} from ${path}\n`);
    });
  program.addCommand(listenCommand(context));
  program.addCommand(endpointsCommand(context));
  program.addCommand(messagesCommand(context));
  program.addCommand(deliveriesCommand(context));
  // Subcommands report their own usage errors through the program's output and exit override.
  for (const command of program.commands)
    for (const sub of [command, ...command.commands])
      sub.exitOverride().configureOutput({ writeOut: streams.out, writeErr: streams.err });
  try {
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    streams.err(`${error instanceof Error ? error.message : String(error)}\n`);
    const code = (error as { code?: unknown } | undefined)?.code;
    return typeof code === "string" && API_ERRORS.has(code) ? 1 : 2;
  }
}
