import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AttemptResult } from "../attempt-result.js";
import { createRetryPolicy } from "./create-retry-policy.js";
import { createRetrySchedule, DEFAULT_RETRY_SCHEDULE } from "./create-retry-schedule.js";

const now = new Date("2026-01-01T00:00:00Z");
const result = (status: number | null, extra: Partial<AttemptResult> = {}): AttemptResult => ({
  status,
  error: status === null ? "ECONNREFUSED" : null,
  startedAt: now,
  durationMs: 5,
  responseBody: "",
  ...extra,
});

describe("createRetrySchedule", () => {
  it("defaults to immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h", () => {
    expect(createRetrySchedule()).toEqual([0, 5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6]);
    expect(createRetrySchedule()).toEqual(DEFAULT_RETRY_SCHEDULE);
  });

  it("reads a comma-separated list of durations", () => {
    expect(createRetrySchedule("0, 50ms,5s,5m,2h,1d")).toEqual([0, 50, 5000, 300_000, 7_200_000, 86_400_000]);
  });

  it("refuses nonsense", () => {
    expect(() => createRetrySchedule("soon")).toThrow(/Not a duration/);
    expect(() => createRetrySchedule("5s,-1")).toThrow();
    expect(() => createRetrySchedule([])).toThrow();
  });
});

describe("createRetryPolicy", () => {
  const policy = createRetryPolicy({ schedule: "0,10s,1m", jitter: 0 });
  const decide = (status: number | null, roundAttempts: number, extra: Partial<AttemptResult> = {}) =>
    policy.decide({ result: result(status, extra), roundAttempts });

  it("counts any 2xx as delivered, and the endpoint as working", () => {
    for (const status of [200, 201, 204, 299]) {
      expect(decide(status, 1)).toEqual({ outcome: "delivered", endpointSucceeded: true });
    }
  });

  it("never counts an informational (1xx), 3xx or missing answer as delivered", () => {
    for (const status of [100, 101, 103, 199, 300, 301, 304, 399, null]) {
      expect(decide(status, 1), String(status)).toEqual({
        outcome: "retrying",
        endpointSucceeded: false,
        retryInMs: 10_000,
      });
    }
  });

  it("jitters each delay by the random draw, up or down", () => {
    const at = (r: number) => createRetryPolicy({ schedule: "10s", jitter: 0.2, random: () => r });
    expect(at(0.9).delayBefore(1)).toBe(11_600);
    expect(at(0.1).delayBefore(1)).toBe(8_400);
    expect(at(0.5).delayBefore(1)).toBe(10_000);
  });

  it("waits the last delay again for attempts beyond the schedule", () => {
    expect(policy.delayBefore(3)).toBe(60_000);
    expect(policy.delayBefore(4)).toBe(60_000);
    expect(policy.delayBefore(9)).toBe(60_000);
  });

  it("defaults to a 1 h Retry-After cap and disabling after 5 days failing", () => {
    const defaults = createRetryPolicy();
    expect(defaults.maxRetryAfterMs).toBe(3_600_000);
    expect(defaults.disableAfterMs).toBe(432_000_000);
  });

  it("retries non-2xx answers and network errors on the schedule", () => {
    for (const status of [301, 400, 401, 429, 500, 503, null]) {
      const decision = decide(status, 1);
      expect(decision.outcome).toBe("retrying");
      expect(decision.retryInMs).toBe(10_000);
    }
    expect(decide(500, 2).retryInMs).toBe(60_000);
  });

  it("fails the delivery once the schedule is used up", () => {
    expect(decide(500, 3)).toEqual({ outcome: "failed", endpointSucceeded: false });
  });

  it("disables the endpoint on 410 Gone", () => {
    expect(decide(410, 1)).toEqual({
      outcome: "disabled",
      endpointSucceeded: false,
      disableEndpoint: "410 Gone",
    });
  });

  it("honours Retry-After instead of the schedule, clamped to the maximum", () => {
    expect(decide(503, 1, { retryAfterMs: 2_000 }).retryInMs).toBe(2_000);
    expect(decide(503, 1, { retryAfterMs: 0 }).retryInMs).toBe(0);
    expect(decide(503, 1, { retryAfterMs: -1 }).retryInMs).toBe(0);
    expect(decide(503, 1, { retryAfterMs: 86_400_000 }).retryInMs).toBe(3_600_000);
  });

  it("leaves failing-for-too-long to the outbox: a failure is retried however long the endpoint has failed", () => {
    const strict = createRetryPolicy({ disableAfterMs: 60_000 });
    const decision = strict.decide({ result: result(500), roundAttempts: 1 });
    expect(decision.outcome).toBe("retrying");
    expect(decision.disableEndpoint).toBeUndefined();
    expect(strict.disableAfterMs).toBe(60_000);
  });

  it("counts failures as one run while they are at most twice the longest possible wait apart", () => {
    expect(createRetryPolicy().failureGapMs).toBe(2 * 36e6 * 1.2);
    expect(createRetryPolicy({ schedule: "0,5s", jitter: 0 }).failureGapMs).toBe(2 * 3_600_000);
    expect(createRetryPolicy({ schedule: "0,20ms", jitter: 0, maxRetryAfterMs: 10 }).failureGapMs).toBe(40);
  });

  it("keeps every jittered delay within ±20 % of the schedule", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        (attempt, r) => {
          const jittered = createRetryPolicy({ random: () => r });
          const base = DEFAULT_RETRY_SCHEDULE[attempt - 1] ?? 0;
          const delay = jittered.delayBefore(attempt);
          return delay >= Math.floor(base * 0.8) && delay <= Math.ceil(base * 1.2);
        },
      ),
    );
  });

  it("fails at once on an answer named final, keeping the schedule for the others; none by default", () => {
    const final = createRetryPolicy({ schedule: "0,10s,1m", jitter: 0, finalStatuses: [400, 422] });
    for (const status of [400, 422])
      expect(final.decide({ result: result(status), roundAttempts: 1 })).toEqual({
        outcome: "failed",
        endpointSucceeded: false,
      });
    expect(final.decide({ result: result(500), roundAttempts: 1 })).toMatchObject({ outcome: "retrying" });
    expect(final.decide({ result: result(null), roundAttempts: 1 })).toMatchObject({ outcome: "retrying" });
    expect(final.decide({ result: result(410), roundAttempts: 1 })).toMatchObject({ outcome: "disabled" });
    expect(final.finalStatuses).toEqual([400, 422]);
    expect(createRetryPolicy().finalStatuses).toEqual([]);
    expect(decide(400, 1)).toMatchObject({ outcome: "retrying" });
    for (const finalStatuses of [[200], [99], [600], [1.5], [204]])
      expect(() => createRetryPolicy({ finalStatuses })).toThrow(
        expect.objectContaining({ code: "ERR_INVALID_RETRY_POLICY" }),
      );
    expect(() => createRetryPolicy({ finalStatuses: [100, 599, 300] })).not.toThrow();
  });
});
