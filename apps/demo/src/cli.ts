#!/usr/bin/env node
import { Command, InvalidArgumentError, Option } from "commander";
import { DemoInterruptedError, runDemo } from "./run-demo.js";

function positiveInt(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError("must be a whole number of 1 or more");
  return parsed;
}

const program = new Command("plant-store-demo")
  .description(
    "Start the receiver and the Plant Store on free local ports with SQLite files, subscribe the receiver, add plants and show each one arriving.",
  )
  .addOption(new Option("--plants <n>", "how many plants to add").default(5).argParser(positiveInt))
  .addOption(new Option("--keep", "leave both apps running after the summary, until Ctrl-C"))
  .addOption(
    new Option("--data-dir <dir>", "where to keep the SQLite files (default: a fresh temporary directory)"),
  )
  .addOption(
    new Option("--timeout <ms>", "how long to wait for every plant").default(30_000).argParser(positiveInt),
  )
  .addOption(new Option("--json", "print the summary as JSON on the last line"))
  .addHelpText(
    "after",
    [
      "",
      "With --keep it also prints, for the two apps it started:",
      "  pnpm receiver check <receiver>/plant/webhook --token … --secret …",
      "      the receiver checked against the contract from the outside: one row per case",
      "      (signatures, timestamps, token, payload, size, duplicates, answer time)",
      "  pnpm sender listen --forward-to <your receiver's URL> --store <store> --admin-token …",
      "      the store's deliveries forwarded to a receiver on your machine over a connection",
      "      the command opens; the store never connects to it, its answers go into the attempt log",
    ].join("\n"),
  )
  .action(
    async (opts: { plants: number; keep?: boolean; dataDir?: string; timeout: number; json?: boolean }) => {
      // Ctrl-C reaches the demo more than once: the terminal signals the whole process group, and
      // `pnpm demo` forwards its own SIGINT to us as well. The first one stops the demo; the handlers
      // stay installed so that a repeat cannot kill it half-way through stopping both apps.
      const stop = new AbortController();
      const onSignal = (signal: NodeJS.Signals) => stop.abort(signal);
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      try {
        const summary = await runDemo({
          plants: opts.plants,
          keep: opts.keep ?? false,
          ...(opts.dataDir === undefined ? {} : { dataDir: opts.dataDir }),
          timeoutMs: opts.timeout,
          write: (text) => process.stdout.write(text),
          signal: stop.signal,
        });
        if (opts.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
        process.exitCode = summary.ok ? 0 : 1;
      } catch (error) {
        if (!(error instanceof DemoInterruptedError)) throw error;
        console.error(error.message);
        // The shell's convention for "stopped by a signal" (128 + its number), without dying of it.
        process.exitCode = stop.signal.reason === "SIGTERM" ? 143 : 130;
      }
    },
  );

program.parseAsync().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
