const UNITS: ReadonlyArray<readonly [string, number]> = [
  ["d", 86_400_000],
  ["h", 3_600_000],
  ["min", 60_000],
  ["s", 1000],
];

/** The reason stored on an endpoint disabled for failing too long: `failing continuously for 5.2 d`. */
export function failingReason(failingForMs: number): string {
  const [unit, size] = UNITS.find(([, size]) => failingForMs >= size) ?? ["ms", 1];
  return `failing continuously for ${Number((failingForMs / size).toFixed(1))} ${unit}`;
}
