const UNITS: ReadonlyArray<readonly [string, number]> = [
  ["d", 86_400_000],
  ["h", 3_600_000],
  ["m", 60_000],
  ["s", 1000],
];

/**
 * Milliseconds in the grammar `parseDuration` reads, in the largest unit that fits, to one decimal:
 * `250ms`, `15s`, `1.5m`, `5.2d`.
 */
export function formatDuration(ms: number): string {
  const [unit, size] = UNITS.find(([, size]) => Math.abs(ms) >= size) ?? ["ms", 1];
  return `${Number((ms / size).toFixed(1))}${unit}`;
}
