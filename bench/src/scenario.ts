import type { BenchResult } from "./bench-result.js";

export interface ScenarioContext {
  quick: boolean;
  /** How many measured runs to take the median of (after one warm-up). */
  runs: number;
  /** Progress lines for the operator (stderr, so stdout stays the table). */
  log(message: string): void;
  /** A fresh temporary directory, removed when the whole bench ends. */
  tempDir(): string;
  /** Set by `--profile`: scenarios that support it run their main server with `--cpu-prof` here. */
  profileDir?: string;
}

export interface Scenario {
  name: string;
  description: string;
  run(context: ScenarioContext): Promise<BenchResult[]>;
}
