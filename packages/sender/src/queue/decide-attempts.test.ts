import { describe, expect, it } from "vitest";
import { type BatchDeliveryState, type BatchEndpointState, decideAttempts } from "./decide-attempts.js";
import type { RecordAttemptInput } from "./outbox.js";

const clock = { storeNow: 10_000, callerNow: 10_000 };
const attempt = { startedAt: new Date(9_000), durationMs: 4, status: 500, error: null, responseBody: "" };

const held = (id: number, endpointId = 1): [number, BatchDeliveryState] => [
  id,
  { status: "pending", leaseOwner: "w1", leaseUntil: 5_000, attemptCount: 0, nextAttemptAt: 0, endpointId },
];
const endpoint = (overrides: Partial<BatchEndpointState> = {}): BatchEndpointState => ({
  status: "active",
  disabledReason: null,
  failingSince: null,
  lastFailureAt: null,
  ...overrides,
});

function failure(deliveryId: number, overrides: Partial<RecordAttemptInput> = {}): RecordAttemptInput {
  return {
    deliveryId,
    workerId: "w1",
    attempt,
    outcome: "retrying",
    nextAttemptAt: new Date(20_000),
    endpointSucceeded: false,
    disableAfterMs: 60_000,
    failureGapMs: 30_000,
    ...overrides,
  };
}
const success = (deliveryId: number): RecordAttemptInput =>
  failure(deliveryId, {
    outcome: "delivered",
    endpointSucceeded: true,
    attempt: { ...attempt, status: 200 },
    nextAttemptAt: undefined as unknown as Date,
  });

describe("decideAttempts", () => {
  it("writes each delivery once and an endpoint's state after every failure of the batch, in order", () => {
    const batch = decideAttempts(
      [failure(1), failure(2)],
      new Map([held(1), held(2)]),
      new Map([[1, endpoint({ failingSince: 1_000, lastFailureAt: 9_500 })]]),
      clock,
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
      new Map([held(1), held(2)]),
      new Map([[1, endpoint({ failingSince: 1_000, lastFailureAt: 9_500 })]]),
      clock,
    );
    expect(batch.endpoints.get(1)).toMatchObject({
      kind: "set",
      failingSince: 10_000,
      lastFailureAt: 10_000,
    });
  });

  it("asks only for a guarded clear when an endpoint of the batch only succeeded (its row was not read)", () => {
    const batch = decideAttempts([success(1), success(2)], new Map([held(1), held(2, 2)]), new Map(), clock);
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
      new Map([held(1), held(2)]),
      new Map([[1, endpoint({ failingSince: 0, lastFailureAt: 59_000 })]]),
      { storeNow: 60_000, callerNow: 60_000 },
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
      [failure(1, { workerId: "late" }), failure(1)],
      new Map([held(1)]),
      new Map([[1, endpoint()]]),
      clock,
    );
    expect(batch.decisions.map((decision) => [decision?.held, decision?.attemptNumber])).toEqual([
      [false, 1],
      [true, 2],
    ]);
    expect(batch.deliveries.get(1)).toMatchObject({ attempts: 2, rounds: 1 });
  });

  it("decides nothing and writes nothing for a delivery that is gone", () => {
    const batch = decideAttempts([failure(9)], new Map(), new Map(), clock);
    expect(batch).toEqual({ decisions: [undefined], deliveries: new Map(), endpoints: new Map() });
  });
});
