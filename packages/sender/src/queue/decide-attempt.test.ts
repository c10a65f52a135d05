import { describe, expect, it } from "vitest";
import type { AttemptResult } from "../attempt-result.js";
import type { AttemptReport } from "../outbox.js";
import { createRetryPolicy } from "../retry/create-retry-policy.js";
import {
  type DecisionPolicy,
  type DeliveryState,
  decideAttempt,
  type EndpointState,
} from "./decide-attempt.js";

const lease = 5_000;
const delivery: DeliveryState = {
  status: "pending",
  leaseOwner: "w1",
  leaseUntil: lease,
  attemptCount: 2,
  roundAttempts: 1,
  nextAttemptAt: 1_000,
};
const healthy: EndpointState = { status: "active", failingSince: null, lastFailureAt: null };
const now = 10_000;
// Attempts 1, 2 and 3 of a round wait 0, 3 s and 7 s; failures more than 30 s apart are separate runs.
const policy: DecisionPolicy = {
  ...createRetryPolicy({ schedule: "0,3s,7s", jitter: 0, disableAfterMs: 60_000 }),
  failureGapMs: 30_000,
};

function report(
  status: number | null,
  extra: Partial<AttemptResult> = {},
  more: Partial<AttemptReport> = {},
) {
  const result: AttemptResult = {
    startedAt: new Date(9_000),
    durationMs: 4,
    status,
    error: status === null ? "ECONNREFUSED" : null,
    responseBody: "",
    ...extra,
  };
  return { deliveryId: 1, workerId: "w1", leaseUntil: new Date(lease), result, ...more };
}

describe("decideAttempt", () => {
  it("delivers on a 2xx: the held delivery is finished, numbered after the last, and the endpoint's run ends", () => {
    expect(decideAttempt(report(204), policy, delivery, healthy, now)).toEqual({
      held: true,
      outcome: "delivered",
      attemptNumber: 3,
      delivery: {
        kind: "finished",
        status: "delivered",
        nextAttemptAt: 1_000,
        lastStatus: 204,
        lastError: null,
        updatedAt: 10_000,
      },
      endpoint: { kind: "succeeded" },
    });
  });

  it.each([
    ["another worker", { leaseOwner: "w2" }],
    ["a later claim of the same worker", { leaseUntil: lease + 1 }],
    ["a delivery already finished", { status: "delivered" as const }],
  ])("only counts a late attempt (lease held by %s), touching neither delivery nor endpoint", (_, row) => {
    expect(decideAttempt(report(500), policy, { ...delivery, ...row }, healthy, now)).toEqual({
      held: false,
      outcome: "retrying",
      attemptNumber: 3,
      delivery: { kind: "counted" },
    });
    expect(decideAttempt(report(410), policy, { ...delivery, ...row }, healthy, now)).toEqual({
      held: false,
      outcome: "disabled",
      attemptNumber: 3,
      delivery: { kind: "counted" },
    });
  });

  it("accepts any claim of the worker when no lease is named", () => {
    const { leaseUntil: _omit, ...withoutLease } = report(200);
    expect(decideAttempt(withoutLease, policy, { ...delivery, leaseUntil: 99 }, healthy, now).held).toBe(
      true,
    );
  });

  it("schedules a retry by the round's next delay, on the store's clock, and says how far off it is", () => {
    const decision = decideAttempt(report(503), policy, delivery, healthy, now);
    expect(decision).toMatchObject({ outcome: "retrying", retryInMs: 7_000, nextAttemptAt: 17_000 });
    expect(decision.delivery).toEqual({
      kind: "finished",
      status: "pending",
      nextAttemptAt: 17_000,
      lastStatus: 503,
      lastError: null,
      updatedAt: 10_000,
    });
    const first = decideAttempt(report(null), policy, { ...delivery, roundAttempts: 0 }, healthy, now);
    expect(first).toMatchObject({ retryInMs: 3_000, nextAttemptAt: 13_000 });
    expect(first.delivery).toMatchObject({ lastStatus: null, lastError: "ECONNREFUSED" });
  });

  it("takes Retry-After for the delay, never below zero", () => {
    expect(decideAttempt(report(429, { retryAfterMs: 2_500 }), policy, delivery, healthy, now)).toMatchObject(
      {
        retryInMs: 2_500,
        nextAttemptAt: 12_500,
      },
    );
    expect(decideAttempt(report(429, { retryAfterMs: -5 }), policy, delivery, healthy, now)).toMatchObject({
      retryInMs: 0,
      nextAttemptAt: 10_000,
    });
  });

  it("fails a delivery whose round is spent, keeping its due time, with no retry", () => {
    const decision = decideAttempt(report(500), policy, { ...delivery, roundAttempts: 2 }, healthy, now);
    expect(decision.outcome).toBe("failed");
    expect(decision.delivery).toMatchObject({ kind: "finished", status: "failed", nextAttemptAt: 1_000 });
    expect(decision).not.toHaveProperty("retryInMs");
    expect(decision).not.toHaveProperty("nextAttemptAt");
  });

  it("starts a failing run at the first failure, and continues it while failures come within the gap", () => {
    expect(decideAttempt(report(500), policy, delivery, healthy, now).endpoint).toEqual({
      kind: "failed",
      failingSince: 10_000,
      lastFailureAt: 10_000,
    });
    const failing: EndpointState = { status: "active", failingSince: 2_000, lastFailureAt: 9_000 };
    expect(decideAttempt(report(500), policy, delivery, failing, now).endpoint).toEqual({
      kind: "failed",
      failingSince: 2_000,
      lastFailureAt: 10_000,
    });
    // Exactly at the gap's edge it still continues.
    const edge: EndpointState = { status: "active", failingSince: 2_000, lastFailureAt: now - 30_000 };
    expect(decideAttempt(report(500), policy, delivery, edge, now).endpoint).toMatchObject({
      failingSince: 2_000,
    });
  });

  it("starts the run again after a silence longer than the gap (the endpoint had no work)", () => {
    const stale: EndpointState = { status: "active", failingSince: 0, lastFailureAt: now - 30_001 };
    const decision = decideAttempt(report(500), policy, delivery, stale, now);
    expect(decision.endpoint).toEqual({ kind: "failed", failingSince: 10_000, lastFailureAt: 10_000 });
    expect(decision.outcome).toBe("retrying");
    // A run with a start but no last failure (an older row) starts over too.
    const odd: EndpointState = { status: "active", failingSince: 0, lastFailureAt: null };
    expect(decideAttempt(report(500), policy, delivery, odd, now).endpoint).toMatchObject({
      failingSince: 10_000,
    });
  });

  it("uses the disable period as the gap when the policy names none", () => {
    const { failureGapMs: _none, ...noGap } = policy;
    const long: EndpointState = { status: "active", failingSince: 5_000, lastFailureAt: now - 60_000 };
    expect(decideAttempt(report(500), noGap, delivery, long, now).endpoint).toMatchObject({
      failingSince: 5_000,
    });
    const longer: EndpointState = { status: "active", failingSince: 5_000, lastFailureAt: now - 60_001 };
    expect(decideAttempt(report(500), noGap, delivery, longer, now).endpoint).toMatchObject({
      failingSince: 10_000,
    });
  });

  it("disables the endpoint once the run has lasted disableAfterMs, and says so", () => {
    const failing: EndpointState = { status: "active", failingSince: now - 60_000, lastFailureAt: 9_999 };
    const decision = decideAttempt(report(500), policy, delivery, failing, now);
    expect(decision).toMatchObject({ outcome: "disabled", disabledEndpoint: "failing continuously for 1m" });
    expect(decision.endpoint).toEqual({
      kind: "failed",
      failingSince: now - 60_000,
      lastFailureAt: now,
      disabledReason: "failing continuously for 1m",
    });
    expect(decision.delivery).toMatchObject({ status: "failed", nextAttemptAt: 1_000 });
    expect(decision).not.toHaveProperty("retryInMs");
    const notYet = decideAttempt(
      report(500),
      policy,
      delivery,
      { ...failing, failingSince: now - 59_999 },
      now,
    );
    expect(notYet.outcome).toBe("retrying");
    expect(notYet).not.toHaveProperty("disabledEndpoint");
    expect(notYet.endpoint).not.toHaveProperty("disabledReason");
  });

  it("disables at once on 410 Gone, but never an endpoint already disabled", () => {
    const decision = decideAttempt(report(410), policy, delivery, healthy, now);
    expect(decision).toMatchObject({ outcome: "disabled", disabledEndpoint: "410 Gone" });
    expect(decision.delivery).toMatchObject({ status: "failed", nextAttemptAt: 1_000 });
    const already = decideAttempt(report(410), policy, delivery, { ...healthy, status: "disabled" }, now);
    expect(already).not.toHaveProperty("disabledEndpoint");
    expect(already.endpoint).toEqual({ kind: "failed", failingSince: 10_000, lastFailureAt: 10_000 });
    // Nor does a long run disable an endpoint that is already disabled.
    const longDisabled: EndpointState = { status: "disabled", failingSince: 0, lastFailureAt: 9_999 };
    expect(decideAttempt(report(500), policy, delivery, longDisabled, now).outcome).toBe("retrying");
  });

  it("records the attempt of a delivery whose endpoint row was not read without an endpoint change", () => {
    const decision = decideAttempt(report(500), policy, delivery, undefined, now);
    expect(decision.held).toBe(true);
    expect(decision).not.toHaveProperty("endpoint");
    expect(decision.outcome).toBe("retrying");
  });
});
