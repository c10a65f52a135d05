const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Thrown for a duration or schedule that cannot be read. */
export class InvalidDurationError extends Error {
  readonly code = "ERR_INVALID_DURATION";
  override readonly name = "InvalidDurationError";
}

/** `"250ms"`, `"5s"`, `"5m"`, `"2h"`, `"5d"` or a bare number of milliseconds, to milliseconds. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!match?.[1])
    throw new InvalidDurationError(`Not a duration: ${JSON.stringify(text)} (try 500ms, 5s, 5m, 2h, 5d)`);
  return Math.round(Number(match[1]) * (UNITS[match[2] ?? "ms"] ?? 1));
}
