import { type BenchResult, skippedResult } from "../bench-result.js";

export function skippedRows(names: readonly string[], reason: string): BenchResult[] {
  return names.map((name) => skippedResult(name, reason));
}
