import { InvalidDurationError, parseDuration } from "@plant-store/types";

/**
 * Delay before each attempt, in ms: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h
 * (Standard Webhooks' recommended schedule, about 27.5 hours in all).
 */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = Object.freeze([
  0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
]);

/** A schedule from `"0,5s,5m,30m"` (or numbers in ms); the default when absent. One entry per attempt. */
export function createRetrySchedule(spec?: string | readonly number[]): number[] {
  if (spec === undefined) return [...DEFAULT_RETRY_SCHEDULE];
  const delays = typeof spec === "string" ? spec.split(",").map(parseDuration) : [...spec];
  if (delays.length === 0 || delays.some((delay) => !Number.isFinite(delay) || delay < 0)) {
    throw new InvalidDurationError("A retry schedule needs at least one non-negative delay");
  }
  return delays;
}
