#!/usr/bin/env node
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Command, Option } from "commander";
import { formatTable, runBench } from "./run-bench.js";
import { scenarios } from "./scenarios/index.js";

const defaultOut = fileURLToPath(new URL("../results/latest.json", import.meta.url));
const defaultProfileDir = fileURLToPath(new URL("../results/profiles", import.meta.url));

const program = new Command("plant-bench")
  .description("Benchmarks of the receive path, the outbox and the whole pipe, each beside its baseline")
  .addOption(
    new Option("--quick", "3 shorter runs per figure instead of 5 (under two minutes)").env("BENCH_QUICK"),
  )
  .addOption(
    new Option("--only <names>", `comma-separated scenarios: ${scenarios.map((s) => s.name).join(", ")}`).env(
      "BENCH_ONLY",
    ),
  )
  .addOption(
    new Option("--out <file>", "where to write the JSON report").default(defaultOut).env("BENCH_OUT"),
  )
  .addOption(
    new Option(
      "--profile [dir]",
      "run the measured receiver with node --cpu-prof and print where its time goes",
    ).preset(defaultProfileDir),
  )
  .action(async (options: { quick?: boolean; only?: string; out: string; profile?: string }) => {
    const wanted = options.only
      ?.split(",")
      .map((name) => name.trim())
      .filter(Boolean);
    const unknown = wanted?.filter((name) => !scenarios.some((s) => s.name === name)) ?? [];
    if (unknown.length > 0) program.error(`unknown scenario(s): ${unknown.join(", ")}`);
    const selected = wanted === undefined ? scenarios : scenarios.filter((s) => wanted.includes(s.name));
    // Profiles are written by the child processes, which do not create the folder.
    if (options.profile !== undefined) mkdirSync(options.profile, { recursive: true });
    const report = await runBench({
      scenarios: selected,
      quick: options.quick === true,
      out: options.out,
      ...(options.profile === undefined ? {} : { profileDir: options.profile }),
    });
    process.stdout.write(
      `${formatTable(report.results)}\n\nmachine: ${JSON.stringify(report.machine)}\nreport: ${options.out}\n`,
    );
  });

await program.parseAsync();
