/** One row of the results table and of `bench/results/latest.json`. */
export interface BenchResult {
  name: string;
  /** `null` when the scenario was skipped: never a made-up number. */
  value: number | null;
  unit: string;
  /** Name of the row this one is compared with (measured in the same run), if any. */
  baseline: string | null;
  /** `value / baseline value`; for latency and CPU rows lower is better, so read it as a cost ratio. */
  ratio: number | null;
  notes?: string;
}

/** A row for a scenario that could not run, with the reason instead of a number. */
export function skippedResult(name: string, reason: string): BenchResult {
  return { name, value: null, unit: "-", baseline: null, ratio: null, notes: `skipped: ${reason}` };
}
