import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { claimedDelivery, recordingLogger } from "../test/fixtures/claimed-delivery.js";
import type { AttemptEvent } from "./attempt-event.js";
import type { AttemptResult } from "./attempt-result.js";
import { createAttemptRunner } from "./create-attempt-runner.js";
import { createRetryPolicy } from "./create-retry-policy.js";
import type { RecordAttemptInput, RecordedAttempt } from "./outbox.js";

const answer = (status: number | null): AttemptResult => ({
  status,
  error: status === null ? "ECONNREFUSED" : null,
  startedAt: new Date(),
  durationMs: 12,
  responseBody: status === null ? "" : "ok",
});

const policy = createRetryPolicy({ schedule: "0,10s", jitter: 0, disableAfterMs: 86_400_000 });

function setUp(status: number | null, stored: (input: RecordAttemptInput) => Promise<RecordedAttempt>) {
  const recorded: RecordAttemptInput[] = [];
  const wakes: number[] = [];
  const events: AttemptEvent[] = [];
  const logger = recordingLogger();
  const run = createAttemptRunner({
    workerId: "w1",
    policy,
    attempt: async () => answer(status),
    record: (input) => {
      recorded.push(input);
      return stored(input);
    },
    wakeAt: (at) => wakes.push(at),
    logger,
    onAttempt: (event) => events.push(event),
  });
  return { run, recorded, wakes, events, logger };
}

const asDecided = async (input: RecordAttemptInput): Promise<RecordedAttempt> => ({
  held: true,
  outcome: input.outcome,
});

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("createAttemptRunner", () => {
  it("records the attempt with the policy's decision under the claim's lease, then logs and reports it", async () => {
    const { run, recorded, wakes, events, logger } = setUp(200, asDecided);
    const delivery = claimedDelivery(5, 2, { messageId: 77, attemptCount: 3, roundAttempts: 0 });
    await run(delivery);
    expect(recorded).toMatchObject([
      {
        deliveryId: 5,
        workerId: "w1",
        leaseUntil: delivery.leaseUntil,
        attempt: { status: 200, error: null, durationMs: 12, responseBody: "ok" },
        outcome: "delivered",
        endpointSucceeded: true,
        disableAfterMs: 86_400_000,
        failureGapMs: policy.failureGapMs,
      },
    ]);
    const expected = {
      deliveryId: 5,
      webhookId: "msg_5",
      messageId: 77,
      endpointId: 2,
      attempt: 4,
      status: 200,
      error: null,
      outcome: "delivered",
      queuedAt: delivery.createdAt.toISOString(),
    };
    expect(events).toEqual([{ ...expected, durationMs: 12 }]);
    expect(logger.lines).toEqual([
      { level: "info", message: "delivery attempt", fields: { ...expected, durationMs: 12, workerId: "w1" } },
    ]);
    expect(wakes).toEqual([]);
  });

  it("wakes the worker for a retry, counting the delay from when the record is stored", async () => {
    const { run, wakes, events } = setUp(503, async (input) => {
      // The store takes 300 ms to write: the retry is due 10 s after that, not after the decision.
      await new Promise((resolve) => setTimeout(resolve, 300));
      return asDecided(input);
    });
    const decidedAt = Date.now();
    const running = run(claimedDelivery(1, 1, { roundAttempts: 0 }));
    await vi.advanceTimersByTimeAsync(300);
    await running;
    expect(events[0]).toMatchObject({
      outcome: "retrying",
      nextAttemptAt: new Date(decidedAt + 10_000).toISOString(),
    });
    expect(wakes).toEqual([decidedAt + 300 + 10_000]);
  });

  it("does not wake for a retry whose lease was lost, and says so", async () => {
    const { run, wakes, logger } = setUp(503, async (input) => ({ held: false, outcome: input.outcome }));
    await run(claimedDelivery(1, 1, { roundAttempts: 0 }));
    expect(wakes).toEqual([]);
    expect(logger.lines.map((line) => line.message)).toEqual([
      "lease lost before the attempt was recorded",
      "delivery attempt",
    ]);
  });

  it("reports what the store stored when it disabled the endpoint on this failure", async () => {
    const { run, wakes, events, logger } = setUp(503, async () => ({
      held: true,
      outcome: "disabled",
      disabledEndpoint: "failing for 1 day",
    }));
    await run(claimedDelivery(1, 9, { roundAttempts: 0 }));
    expect(events[0]?.outcome).toBe("disabled");
    expect(events[0]).not.toHaveProperty("nextAttemptAt");
    expect(wakes).toEqual([]);
    expect(logger.lines.at(-1)).toEqual({
      level: "warn",
      message: "endpoint disabled",
      fields: { endpointId: 9, reason: "failing for 1 day" },
    });
  });

  it("logs a record that failed for good and still reports the attempt, leaving the delivery to its lease", async () => {
    const { run, events, logger } = setUp(null, async () => {
      throw new Error("disk I/O error");
    });
    await run(claimedDelivery(1, 1));
    expect(events).toMatchObject([{ status: null, error: "ECONNREFUSED", outcome: "retrying" }]);
    expect(logger.lines.map((line) => [line.level, line.message])).toEqual([
      ["error", "could not record attempt"],
      ["info", "delivery attempt"],
    ]);
  });
});
