/**
 * The spread of a figure over runs, for a row's notes: "0.62-0.70 over 3 runs (0.62, 0.70, 0.65)",
 * values in the order they were measured. A median alone hides how far runs on a shared machine
 * disagree; this says it beside the number.
 */
export function formatSpread(values: readonly number[], digits = 2): string {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return "no runs";
  const fixed = (value: number) => value.toFixed(digits);
  const low = Math.min(...finite);
  const high = Math.max(...finite);
  const runs = `${finite.length} run${finite.length === 1 ? "" : "s"}`;
  return `${fixed(low)}-${fixed(high)} over ${runs} (${finite.map(fixed).join(", ")})`;
}
