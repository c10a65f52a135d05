import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type BenchResult, skippedResult } from "./bench-result.js";
import { formatTable } from "./format-table.js";
import { type MachineInfo, machineInfo } from "./machine-info.js";
import type { Scenario } from "./scenario.js";

export interface BenchReport {
  machine: MachineInfo;
  date: string;
  quick: boolean;
  results: BenchResult[];
}

export interface RunBenchOptions {
  scenarios: readonly Scenario[];
  quick: boolean;
  out: string;
  profileDir?: string;
  log?: (message: string) => void;
}

/**
 * Runs the scenarios one after another (never two at once: they would share the two cores),
 * prints the table and writes the report. A scenario that throws becomes a `failed:` row.
 */
export async function runBench(options: RunBenchOptions): Promise<BenchReport> {
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const temp = mkdtempSync(join(tmpdir(), "plant-bench-"));
  let counter = 0;
  const results: BenchResult[] = [];
  const benchStarted = Date.now();
  try {
    for (const scenario of options.scenarios) {
      const started = Date.now();
      log(`== ${scenario.name}: ${scenario.description}`);
      try {
        results.push(
          ...(await scenario.run({
            quick: options.quick,
            runs: options.quick ? 3 : 5,
            log,
            ...(options.profileDir === undefined ? {} : { profileDir: options.profileDir }),
            tempDir() {
              counter += 1;
              const dir = join(temp, `${scenario.name}-${counter}`);
              mkdirSync(dir, { recursive: true });
              return dir;
            },
          })),
        );
      } catch (error) {
        log(`${scenario.name} failed: ${(error as Error).stack ?? String(error)}`);
        results.push({
          ...skippedResult(scenario.name, ""),
          notes: `failed: ${(error as Error).message.replace(/\s+/g, " ").trim().slice(0, 240)}`,
        });
      }
      log(`== ${scenario.name} took ${((Date.now() - started) / 1000).toFixed(1)} s`);
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  log(`== all scenarios took ${((Date.now() - benchStarted) / 1000).toFixed(1)} s`);
  const report: BenchReport = {
    machine: machineInfo(),
    date: new Date().toISOString(),
    quick: options.quick,
    results,
  };
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, `${JSON.stringify(report, null, 2)}\n`);
  return report;
}

export { formatTable };
