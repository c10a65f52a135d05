import type { BenchResult } from "./bench-result.js";

/** A measured row compared with another row of the same run. */
export function ratioRow(
  name: string,
  value: number,
  unit: string,
  baseline?: { name: string; value: number },
  notes?: string,
): BenchResult {
  const ratio =
    baseline === undefined || !Number.isFinite(baseline.value) || baseline.value === 0
      ? null
      : value / baseline.value;
  return {
    name,
    value,
    unit,
    baseline: baseline?.name ?? null,
    ratio,
    ...(notes === undefined ? {} : { notes }),
  };
}
