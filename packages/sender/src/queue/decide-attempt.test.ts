import { describe, expect, it } from "vitest";
import { type DeliveryState, decideAttempt, type EndpointState } from "./decide-attempt.js";
import type { RecordAttemptInput } from "./outbox.js";

const lease = 5_000;
const delivery: DeliveryState = {
  status: "pending",
  leaseOwner: "w1",
  leaseUntil: lease,
  attemptCount: 2,
  nextAttemptAt: 1_000,
};
const healthy: EndpointState = { status: "active", failingSince: null, lastFailureAt: null };
const clock = { storeNow: 10_000, callerNow: 10_000 };
const attempt = { startedAt: new Date(9_000), durationMs: 4, status: 500, error: null, responseBody: "" };

function input(overrides: Partial<RecordAttemptInput> = {}): RecordAttemptInput {
  return {
    deliveryId: 1,
    workerId: "w1",
    leaseUntil: new Date(lease),
    attempt,
    outcome: "retrying",
    endpointSucceeded: false,
    disableAfterMs: 60_000,
    failureGapMs: 30_000,
    ...overrides,
  };
}

describe("decideAttempt", () => {
  it("moves a held delivery on, numbering the attempt after the last", () => {
    const decision = decideAttempt(
      input({ outcome: "delivered", endpointSucceeded: true, attempt: { ...attempt, status: 200 } }),
      delivery,
      healthy,
      clock,
    );
    expect(decision).toEqual({
      held: true,
      outcome: "delivered",
      attemptNumber: 3,
      delivery: {
        kind: "finished",
        status: "delivered",
        nextAttemptAt: 1_000,
        lastStatus: 200,
        lastError: null,
        updatedAt: 10_000,
      },
      endpoint: { kind: "succeeded" },
    });
  });

  it.each([
    ["another worker", { leaseOwner: "w2" }, {}],
    ["a later claim of the same worker", { leaseUntil: lease + 1 }, {}],
    ["a delivery already finished", { status: "delivered" as const }, {}],
  ])(
    "only counts a late attempt (lease held by %s), touching neither delivery nor endpoint",
    (_, row, extra) => {
      const decision = decideAttempt(input(extra), { ...delivery, ...row }, healthy, clock);
      expect(decision).toEqual({
        held: false,
        outcome: "retrying",
        attemptNumber: 3,
        delivery: { kind: "counted" },
      });
    },
  );

  it("accepts any claim of the worker when no lease is named", () => {
    const { leaseUntil: _omit, ...withoutLease } = input();
    expect(decideAttempt(withoutLease, { ...delivery, leaseUntil: 99 }, healthy, clock).held).toBe(true);
  });

  it("schedules the retry by its delay, on the store's clock", () => {
    const retry = input({ nextAttemptAt: new Date(10_500) });
    const decision = decideAttempt(retry, delivery, healthy, { storeNow: 20_000, callerNow: 10_000 });
    expect(decision.delivery).toMatchObject({ kind: "finished", status: "pending", nextAttemptAt: 20_500 });
    const past = decideAttempt(input({ nextAttemptAt: new Date(9_000) }), delivery, healthy, clock);
    expect(past.delivery).toMatchObject({ nextAttemptAt: 10_000 });
  });

  it("starts a failing run at the first failure, and continues it while failures come within the gap", () => {
    expect(decideAttempt(input(), delivery, healthy, clock).endpoint).toEqual({
      kind: "failed",
      failingSince: 10_000,
      lastFailureAt: 10_000,
    });
    const failing: EndpointState = { status: "active", failingSince: 2_000, lastFailureAt: 9_000 };
    expect(decideAttempt(input(), delivery, failing, clock).endpoint).toEqual({
      kind: "failed",
      failingSince: 2_000,
      lastFailureAt: 10_000,
    });
  });

  it("starts the run again after a silence longer than the gap (the endpoint had no work)", () => {
    const stale: EndpointState = { status: "active", failingSince: 0, lastFailureAt: 1_000 };
    const decision = decideAttempt(input({ failureGapMs: 5_000 }), delivery, stale, clock);
    expect(decision.endpoint).toEqual({ kind: "failed", failingSince: 10_000, lastFailureAt: 10_000 });
    expect(decision.outcome).toBe("retrying");
  });

  it("disables the endpoint once the run has lasted disableAfterMs, and says so", () => {
    const failing: EndpointState = { status: "active", failingSince: 0, lastFailureAt: 9_999 };
    const decision = decideAttempt(input({ disableAfterMs: 10_000 }), delivery, failing, clock);
    expect(decision.outcome).toBe("disabled");
    expect(decision.disabledEndpoint).toBe("failing continuously for 10s");
    expect(decision.endpoint).toMatchObject({
      kind: "failed",
      disabledReason: "failing continuously for 10s",
    });
    expect(decision.delivery).toMatchObject({ status: "failed" });
    const notYet = decideAttempt(input({ disableAfterMs: 10_001 }), delivery, failing, clock);
    expect(notYet.outcome).toBe("retrying");
    expect(notYet.disabledEndpoint).toBeUndefined();
  });

  it("disables at once for a reason given (410 Gone), but never an endpoint already disabled", () => {
    const gone = input({ outcome: "disabled", disableEndpoint: "410 Gone" });
    const decision = decideAttempt(gone, delivery, healthy, clock);
    expect(decision).toMatchObject({ outcome: "disabled", disabledEndpoint: "410 Gone" });
    expect(decision.delivery).toMatchObject({ status: "failed", nextAttemptAt: 1_000 });
    const already = decideAttempt(gone, delivery, { ...healthy, status: "disabled" }, clock);
    expect(already.disabledEndpoint).toBeUndefined();
    expect(already.endpoint).toEqual({ kind: "failed", failingSince: 10_000, lastFailureAt: 10_000 });
  });

  it("marks an exhausted delivery failed without touching its due time", () => {
    const decision = decideAttempt(input({ outcome: "failed" }), delivery, healthy, clock);
    expect(decision.delivery).toMatchObject({ kind: "finished", status: "failed", nextAttemptAt: 1_000 });
  });

  it("records the attempt of a delivery whose endpoint row is gone without an endpoint change", () => {
    const decision = decideAttempt(input(), delivery, undefined, clock);
    expect(decision.held).toBe(true);
    expect(decision.endpoint).toBeUndefined();
  });
});
