import type { OperationalEvent } from "@plant-store/types";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { claimedDelivery, recordingLogger } from "../../test/fixtures/claimed-delivery.js";
import type { AttemptEvent } from "../attempt-event.js";
import type { AttemptResult } from "../attempt-result.js";
import type { AttemptReport, ClaimedDelivery, RecordedAttempt } from "../outbox.js";
import { createAttemptRunner } from "./create-attempt-runner.js";

const answer = (status: number | null): AttemptResult => ({
  status,
  error: status === null ? "ECONNREFUSED" : null,
  startedAt: new Date(),
  durationMs: 12,
  responseBody: status === null ? "" : "ok",
});

const LEASE_END = 1_000_000;

function setUp(
  status: number | null,
  stored: (report: AttemptReport) => Promise<RecordedAttempt | undefined>,
) {
  const recorded: Array<{ report: AttemptReport; deadline: number }> = [];
  const wakes: number[] = [];
  const events: AttemptEvent[] = [];
  const logger = recordingLogger();
  const run = createAttemptRunner({
    workerId: "w1",
    attempt: async () => answer(status),
    record: (report, deadline) => {
      recorded.push({ report, deadline });
      return stored(report);
    },
    leaseEnd: (_delivery: ClaimedDelivery) => LEASE_END,
    wakeAt: (at) => wakes.push(at),
    now: Date.now,
    logger,
    onAttempt: (event) => events.push(event),
  });
  return { run, recorded, wakes, events, logger };
}

const delivered = async (): Promise<RecordedAttempt> => ({ held: true, attempt: 4, outcome: "delivered" });

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("createAttemptRunner", () => {
  it("records the attempt's result under the claim's lease, then logs and reports what the outbox decided", async () => {
    const { run, recorded, wakes, events, logger } = setUp(200, delivered);
    const delivery = claimedDelivery(5, 2, { messageId: 77, attemptCount: 3, roundAttempts: 0 });
    await run(delivery);
    expect(recorded).toEqual([
      {
        report: {
          deliveryId: 5,
          workerId: "w1",
          leaseUntil: delivery.leaseUntil,
          result: expect.objectContaining({ status: 200, error: null, durationMs: 12, responseBody: "ok" }),
        },
        deadline: LEASE_END,
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

  it("wakes the worker for a retry after the outbox's delay, counted from when the record came back", async () => {
    let written = () => {};
    const { run, wakes, events } = setUp(503, async () => {
      // The store takes 300 ms to write (the test moves the fake clock, then lets it answer): the
      // retry is due 10 s after its own time of writing.
      await new Promise<void>((resolve) => {
        written = resolve;
      });
      return {
        held: true,
        attempt: 1,
        outcome: "retrying",
        retryInMs: 10_000,
        nextAttemptAt: new Date(5_000),
      };
    });
    const start = Date.now();
    const running = run(claimedDelivery(1, 1, { roundAttempts: 0 }));
    await vi.advanceTimersByTimeAsync(300);
    written();
    await running;
    // The stored time is reported as stored (the store's clock); the wake is a delay on this one.
    expect(events[0]).toMatchObject({
      outcome: "retrying",
      attempt: 1,
      nextAttemptAt: new Date(5_000).toISOString(),
    });
    expect(wakes).toEqual([start + 300 + 10_000]);
  });

  it("does not wake for a retry whose lease was lost, and says so", async () => {
    const { run, wakes, logger, events } = setUp(503, async () => ({
      held: false,
      attempt: 2,
      outcome: "retrying",
    }));
    await run(claimedDelivery(1, 1, { roundAttempts: 0 }));
    expect(wakes).toEqual([]);
    expect(events[0]).toMatchObject({ attempt: 2, outcome: "retrying" });
    expect(logger.lines.map((line) => [line.message, line.fields.deliveryId])).toEqual([
      ["lease lost before the attempt was recorded", 1],
      ["delivery attempt", 1],
    ]);
  });

  it("reports the endpoint the outbox disabled on this failure", async () => {
    const { run, wakes, events, logger } = setUp(503, async () => ({
      held: true,
      attempt: 1,
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

  it("logs a record that failed for good and reports the attempt as unrecorded, due again when its lease ends", async () => {
    const { run, events, logger } = setUp(null, async () => {
      throw new Error("disk I/O error");
    });
    await run(claimedDelivery(1, 1, { attemptCount: 4 }));
    expect(events).toEqual([
      expect.objectContaining({
        attempt: 5,
        status: null,
        error: "ECONNREFUSED",
        outcome: "retrying",
        recorded: false,
        nextAttemptAt: new Date(LEASE_END).toISOString(),
      }),
    ]);
    expect(logger.lines.map((line) => [line.level, line.message])).toEqual([
      ["error", "could not record attempt"],
      ["info", "delivery attempt"],
    ]);
    expect(logger.lines[0]?.fields).toEqual({ deliveryId: 1, err: new Error("disk I/O error") });
  });

  it("reports nothing for a delivery removed with its endpoint while it was attempted", async () => {
    const { run, events, logger } = setUp(200, async () => undefined);
    await run(claimedDelivery(1, 1));
    expect(events).toEqual([]);
    expect(logger.lines).toEqual([
      { level: "info", message: "delivery removed during its attempt", fields: { deliveryId: 1 } },
    ]);
  });

  it("runs every path without a logger or an onAttempt listener", async () => {
    const outcomes: Array<() => Promise<RecordedAttempt | undefined>> = [
      delivered,
      async () => undefined,
      async () => ({ held: false, attempt: 1, outcome: "retrying" }),
      async () => ({ held: true, attempt: 1, outcome: "disabled", disabledEndpoint: "410 Gone" }),
      async () => {
        throw new Error("disk I/O error");
      },
    ];
    for (const stored of outcomes) {
      const run = createAttemptRunner({
        workerId: "w1",
        attempt: async () => answer(410),
        record: stored,
        leaseEnd: () => LEASE_END,
        wakeAt: () => undefined,
        now: Date.now,
      });
      await expect(run(claimedDelivery(1, 1))).resolves.toBeUndefined();
    }
  });

  it("logs each alert the outbox queued with this record and hands it to onAlert, after the attempt's event", async () => {
    const failing: OperationalEvent = {
      type: "endpoint.failing",
      endpointId: 9,
      url: "http://127.0.0.1:1/hook/9",
      subscriberId: null,
      at: "2026-01-01T00:10:00.000Z",
      failingSince: "2026-01-01T00:00:00.000Z",
      lastStatus: 503,
      lastError: null,
    };
    const failed: OperationalEvent = {
      type: "delivery.failed",
      endpointId: 9,
      url: "http://127.0.0.1:1/hook/9",
      subscriberId: null,
      at: "2026-01-01T00:10:00.000Z",
      deliveryId: 1,
      messageId: 101,
      webhookId: "msg_1",
      eventType: null,
      attempts: 5,
      lastStatus: 503,
      lastError: null,
    };
    const order: string[] = [];
    const logger = recordingLogger();
    const run = createAttemptRunner({
      workerId: "w1",
      attempt: async () => answer(503),
      record: async () => ({ held: true, attempt: 5, outcome: "failed", alerts: [failing, failed] }),
      leaseEnd: () => LEASE_END,
      wakeAt: () => undefined,
      now: Date.now,
      logger,
      onAttempt: (event) => order.push(`attempt ${event.outcome}`),
      onAlert: (alert) => order.push(`alert ${alert.type}`),
    });
    await run(claimedDelivery(1, 9, { attemptCount: 4 }));
    expect(order).toEqual(["attempt failed", "alert endpoint.failing", "alert delivery.failed"]);
    expect(logger.lines.slice(1)).toEqual([
      { level: "warn", message: "endpoint.failing", fields: { alert: failing } },
      { level: "warn", message: "delivery.failed", fields: { alert: failed } },
    ]);
    // Without a logger or a listener the alerts are only dropped: the attempt is still reported as recorded.
    const events: AttemptEvent[] = [];
    const quiet = createAttemptRunner({
      workerId: "w1",
      attempt: async () => answer(503),
      record: async () => ({ held: true, attempt: 5, outcome: "failed", alerts: [failing] }),
      leaseEnd: () => LEASE_END,
      wakeAt: () => undefined,
      now: Date.now,
      onAttempt: (event) => events.push(event),
    });
    await quiet(claimedDelivery(1, 9, { attemptCount: 4 }));
    expect(events).toEqual([expect.objectContaining({ attempt: 5, outcome: "failed" })]);
    expect(events[0]).not.toHaveProperty("recorded");
  });

  it("without a logger reports each record's outcome as with one: nothing for a removed delivery, a lost lease's attempt as recorded", async () => {
    const eventsOf = async (stored: RecordedAttempt | undefined) => {
      const events: AttemptEvent[] = [];
      const run = createAttemptRunner({
        workerId: "w1",
        attempt: async () => answer(503),
        record: async () => stored,
        leaseEnd: () => LEASE_END,
        wakeAt: () => undefined,
        now: Date.now,
        onAttempt: (event) => events.push(event),
      });
      await run(claimedDelivery(1, 1));
      return events;
    };
    expect(await eventsOf(undefined)).toEqual([]);
    const lost = await eventsOf({ held: false, attempt: 2, outcome: "retrying" });
    expect(lost).toEqual([expect.objectContaining({ attempt: 2, outcome: "retrying" })]);
    expect(lost[0]).not.toHaveProperty("recorded");
  });

  it("frees the slot once the request is over, before the record is made", async () => {
    const order: string[] = [];
    const run = createAttemptRunner({
      workerId: "w1",
      attempt: async () => {
        order.push("attempt");
        return answer(200);
      },
      record: async () => {
        order.push("record");
        return { held: true, attempt: 1, outcome: "delivered" };
      },
      leaseEnd: () => Date.now() + 60_000,
      minLeaseLeftMs: 11_000,
      giveBack: async () => {
        order.push("give back");
      },
      wakeAt: () => undefined,
      now: Date.now,
    });
    await run(claimedDelivery(1, 1), () => order.push("free"));
    expect(order).toEqual(["attempt", "free", "record"]);
  });

  it("gives a delivery back unattempted when less of its lease is left than an attempt and its record need", async () => {
    const order: string[] = [];
    const logger = recordingLogger();
    const now = Date.now();
    const runner = (leaseLeft: number) =>
      createAttemptRunner({
        workerId: "w1",
        attempt: async () => {
          order.push("attempt");
          return answer(200);
        },
        record: async () => ({ held: true, attempt: 1, outcome: "delivered" }),
        leaseEnd: () => now + leaseLeft,
        minLeaseLeftMs: 11_000,
        giveBack: async (delivery) => {
          order.push(`give back ${delivery.id}`);
        },
        wakeAt: () => undefined,
        now: () => now,
        logger,
      });
    await runner(10_999)(claimedDelivery(3, 1));
    expect(order).toEqual(["give back 3"]);
    expect(logger.lines).toEqual([
      { level: "warn", message: "lease too short for an attempt, given back", fields: { deliveryId: 3 } },
    ]);
    await runner(11_000)(claimedDelivery(4, 1));
    expect(order).toEqual(["give back 3", "attempt"]);
  });

  it("gives a delivery back without a logger, and leaves it to its lease when there is no giveBack", async () => {
    const given: number[] = [];
    const attempted: number[] = [];
    const runner = (giveBack: ((delivery: ClaimedDelivery) => Promise<void>) | undefined) =>
      createAttemptRunner({
        workerId: "w1",
        attempt: async (delivery) => {
          attempted.push(delivery.id);
          return answer(200);
        },
        record: async () => ({ held: true, attempt: 1, outcome: "delivered" }),
        leaseEnd: () => 5_000,
        minLeaseLeftMs: 11_000,
        ...(giveBack ? { giveBack } : {}),
        wakeAt: () => undefined,
        now: () => 0,
      });
    await expect(
      runner(async (delivery) => {
        given.push(delivery.id);
      })(claimedDelivery(3, 1)),
    ).resolves.toBeUndefined();
    await expect(runner(undefined)(claimedDelivery(4, 1))).resolves.toBeUndefined();
    expect(given).toEqual([3]);
    expect(attempted).toEqual([]);
  });
});
