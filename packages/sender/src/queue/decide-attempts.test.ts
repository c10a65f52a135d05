import { describe, expect, it } from "vitest";
import type { AttemptResult } from "../attempt-result.js";
import type { AttemptReport } from "../outbox.js";
import { createRetryPolicy } from "../retry/create-retry-policy.js";
import { type BatchDeliveryState, type BatchEndpointState, decideAttempts } from "./decide-attempts.js";

const now = 10_000;
// Every failure is retried 10 s later; failures more than 30 s apart are separate runs.
const policy = {
  ...createRetryPolicy({ schedule: "0,10s,10s", jitter: 0, disableAfterMs: 60_000 }),
  failureGapMs: 30_000,
};
const result: AttemptResult = {
  startedAt: new Date(9_000),
  durationMs: 4,
  status: 500,
  error: null,
  responseBody: "",
};

const held = (id: number, endpointId = 1): [number, BatchDeliveryState] => [
  id,
  {
    status: "pending",
    leaseOwner: "w1",
    leaseUntil: 5_000,
    attemptCount: 0,
    roundAttempts: 0,
    nextAttemptAt: 0,
    endpointId,
  },
];
const endpoint = (overrides: Partial<BatchEndpointState> = {}): BatchEndpointState => ({
  status: "active",
  disabledReason: null,
  failingSince: null,
  lastFailureAt: null,
  ...overrides,
});

const failure = (deliveryId: number, workerId = "w1"): AttemptReport => ({ deliveryId, workerId, result });
const success = (deliveryId: number): AttemptReport => ({
  deliveryId,
  workerId: "w1",
  result: { ...result, status: 200 },
});

describe("decideAttempts", () => {
  it("writes each delivery once and an endpoint's state after every failure of the batch, in order", () => {
    const batch = decideAttempts(
      [failure(1), failure(2)],
      policy,
      new Map([held(1), held(2)]),
      new Map([[1, endpoint({ failingSince: 1_000, lastFailureAt: 9_500 })]]),
      now,
    );
    expect(batch.decisions.map((decision) => decision?.outcome)).toEqual(["retrying", "retrying"]);
    expect(batch.deliveries.get(1)).toEqual({
      attempts: 1,
      rounds: 1,
      finished: {
        status: "pending",
        nextAttemptAt: 20_000,
        lastStatus: 500,
        lastError: null,
        updatedAt: 10_000,
      },
    });
    // One failing run, continued by both.
    expect(batch.endpoints.get(1)).toEqual({
      kind: "set",
      status: "active",
      disabledReason: null,
      failingSince: 1_000,
      lastFailureAt: 10_000,
    });
  });

  it("lets a success earlier in the batch end the run a later failure then starts again", () => {
    const batch = decideAttempts(
      [success(1), failure(2)],
      policy,
      new Map([held(1), held(2)]),
      new Map([[1, endpoint({ failingSince: 1_000, lastFailureAt: 9_500 })]]),
      now,
    );
    expect(batch.endpoints.get(1)).toMatchObject({
      kind: "set",
      failingSince: 10_000,
      lastFailureAt: 10_000,
    });
  });

  it("asks only for a guarded clear when an endpoint of the batch only succeeded (its row was not read)", () => {
    const batch = decideAttempts(
      [success(1), success(2)],
      policy,
      new Map([held(1), held(2, 2)]),
      new Map(),
      now,
    );
    expect(batch.endpoints).toEqual(
      new Map([
        [1, { kind: "clear" }],
        [2, { kind: "clear" }],
      ]),
    );
    expect(batch.deliveries.get(2)?.finished?.status).toBe("delivered");
  });

  it("disables an endpoint once, at the failure that reaches the period, and reports the later ones as they are", () => {
    const batch = decideAttempts(
      [failure(1), failure(2)],
      policy,
      new Map([held(1), held(2)]),
      new Map([[1, endpoint({ failingSince: 0, lastFailureAt: 59_000 })]]),
      60_000,
    );
    expect(batch.decisions.map((decision) => decision?.outcome)).toEqual(["disabled", "retrying"]);
    expect(batch.decisions[0]?.disabledEndpoint).toBe("failing continuously for 1m");
    expect(batch.endpoints.get(1)).toMatchObject({
      status: "disabled",
      disabledReason: "failing continuously for 1m",
    });
  });

  it("numbers two attempts of one delivery in turn, and only the lease holder's moves it", () => {
    const batch = decideAttempts(
      [failure(1, "late"), failure(1)],
      policy,
      new Map([held(1)]),
      new Map([[1, endpoint()]]),
      now,
    );
    expect(batch.decisions.map((decision) => [decision?.held, decision?.attemptNumber])).toEqual([
      [false, 1],
      [true, 2],
    ]);
    expect(batch.deliveries.get(1)).toMatchObject({ attempts: 2, rounds: 1 });
  });

  it("decides nothing and writes nothing for a delivery that is gone", () => {
    const batch = decideAttempts([failure(9)], policy, new Map(), new Map(), now);
    expect(batch).toEqual({ decisions: [undefined], deliveries: new Map(), endpoints: new Map() });
  });

  it("sees a delivery as the batch's earlier attempt left it: finished, its lease freed, its round moved on", () => {
    // The holder's retry moves the round on (1 → 2 of 3), so a late report after it is the round's last.
    const batch = decideAttempts(
      [failure(1), failure(1), failure(1, "late")],
      policy,
      new Map([[1, { ...(held(1)[1] as BatchDeliveryState), roundAttempts: 1 }]]),
      new Map([[1, endpoint()]]),
      now,
    );
    expect(
      batch.decisions.map((decision) => [decision?.held, decision?.attemptNumber, decision?.outcome]),
    ).toEqual([
      [true, 1, "retrying"],
      [false, 2, "failed"],
      [false, 3, "failed"],
    ]);
    expect(batch.deliveries.get(1)).toMatchObject({
      attempts: 3,
      rounds: 1,
      finished: { status: "pending" },
    });
  });

  it("writes a read endpoint's run as ended when a success follows a failure in the batch", () => {
    const batch = decideAttempts(
      [failure(1), success(2)],
      policy,
      new Map([held(1), held(2)]),
      new Map([[1, endpoint({ failingSince: 1_000, lastFailureAt: 9_500 })]]),
      now,
    );
    expect(batch.endpoints.get(1)).toEqual({
      kind: "set",
      status: "active",
      disabledReason: null,
      failingSince: null,
      lastFailureAt: 10_000,
    });
  });

  it("writes nothing to an endpoint whose row is gone when its delivery failed", () => {
    const batch = decideAttempts([failure(1)], policy, new Map([held(1)]), new Map(), now);
    expect(batch.decisions[0]).toMatchObject({ held: true, outcome: "retrying" });
    expect(batch.endpoints).toEqual(new Map());
  });
});
