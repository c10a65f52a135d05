import { DELIVERY_TIMEOUT_MS } from "@plant-store/types";
import { Command, CommanderError, Option } from "commander";
import { formatCheckReport } from "./format-check-report.js";
import { InvalidCheckOptionsError } from "./invalid-check-options-error.js";
import { runReceiverCheck } from "./run-receiver-check.js";

/** Where the CLI writes; the process's own streams by default. */
export interface CheckCliOutput {
  /** `columns`: the terminal's width, when it is one. */
  stdout: { write(text: string): unknown; columns?: number };
  stderr: { write(text: string): unknown };
}

/** Exit codes: every case passed, a case failed, the arguments were unusable. */
export const CHECK_EXIT = { ok: 0, failed: 1, usage: 2 } as const;

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * `plant-receiver-check <url> --token … --secret …`: runs the check and prints the table (or the
 * report as JSON with `--json`). Resolves with the exit code instead of exiting, so the receiver
 * app's `plant-receiver check` can run it too. `name` is the command shown in help and errors.
 */
export async function runCheckCli(
  argv: readonly string[],
  output: CheckCliOutput = process,
  name = "plant-receiver-check",
): Promise<number> {
  const program = new Command(name)
    .description(
      "Checks a running New Plant webhook receiver (or, with --spec, a receiver of a webhook of your own OpenAPI document) from the outside: sends one request per case (valid, duplicate, timestamps, signatures, token, payload, size, content type) to the URL given, and only there, and prints a table. Exit code 1 when a case fails.",
    )
    .argument("<url>", "the receiver's webhook URL, e.g. http://127.0.0.1:8781/plant/webhook")
    .addOption(
      new Option("--token <token>", "the bearer token the receiver accepts").env(
        "PLANT_RECEIVER_CHECK_TOKEN",
      ),
    )
    .addOption(
      new Option(
        "--secret <key>",
        "a whsec_ secret, or the whsk_ signing key of a whpk_ the receiver holds (v1a); repeat for each one the receiver holds (env: comma-separated). The first signs the valid delivery",
      )
        .env("PLANT_RECEIVER_CHECK_SECRETS")
        .argParser(collect),
    )
    .addOption(
      new Option(
        "--timeout <ms>",
        `longest wait for each answer, at most the store's ${DELIVERY_TIMEOUT_MS} ms (lower it to match a store run with --timeout)`,
      ).default(String(DELIVERY_TIMEOUT_MS)),
    )
    .option(
      "--spec <document>",
      "check a receiver of this OpenAPI document's webhook (JSON, or YAML for .yaml/.yml) instead of New Plant: bodies from its examples or built from its schema, invalid ones derived from the schema",
    )
    .option(
      "--event-type <type>",
      "the webhook of --spec to check, by its event type as the toolkit names it (needed when the document has several)",
    )
    .option("--json", "print the report as JSON, for CI")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => output.stdout.write(text),
      writeErr: (text) => output.stderr.write(text),
    });
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    // --help: commander printed it already.
    return error.exitCode === 0 ? CHECK_EXIT.ok : CHECK_EXIT.usage;
  }
  const opts = program.opts<{
    token?: string;
    secret?: string[];
    timeout: string;
    json?: boolean;
    spec?: string;
    eventType?: string;
  }>();
  const timeoutMs = /^\d+$/.test(opts.timeout) ? Number(opts.timeout) : Number.NaN;
  try {
    const report = await runReceiverCheck({
      url: program.args[0] as string,
      // New Plant always asks for a token (its absence is told); a document's webhook only when its security says so.
      ...(opts.spec === undefined
        ? { token: opts.token ?? "" }
        : opts.token === undefined
          ? {}
          : { token: opts.token }),
      ...(opts.spec === undefined ? {} : { spec: opts.spec }),
      ...(opts.eventType === undefined ? {} : { eventType: opts.eventType }),
      // The environment variable holds a comma-separated list; flags repeat.
      secrets: (opts.secret ?? []).flatMap((value) => value.split(",")).map((value) => value.trim()),
      timeoutMs,
    });
    const width = output.stdout.columns;
    output.stdout.write(
      opts.json
        ? `${JSON.stringify(report)}\n`
        : formatCheckReport(report, width === undefined ? {} : { width }),
    );
    return report.ok ? CHECK_EXIT.ok : CHECK_EXIT.failed;
  } catch (error) {
    if (!(error instanceof InvalidCheckOptionsError)) throw error;
    const flags: Record<string, string> = {
      url: "<url>",
      token: "--token (PLANT_RECEIVER_CHECK_TOKEN)",
      secrets: "--secret (PLANT_RECEIVER_CHECK_SECRETS)",
      timeoutMs: "--timeout",
      spec: "--spec",
      eventType: "--event-type",
    };
    const lines = error.problems.map((problem) => {
      const [key = "", ...rest] = problem.split(":");
      const [field = "", index] = key.split(".");
      const where = index === undefined ? "" : ` (value ${Number(index) + 1})`;
      return `  ${flags[field] ?? field}${where}:${rest.join(":")}`;
    });
    output.stderr.write(
      `${name}: invalid arguments:\n${lines.join("\n")}\nRun with --help to see every option.\n`,
    );
    return CHECK_EXIT.usage;
  }
}
