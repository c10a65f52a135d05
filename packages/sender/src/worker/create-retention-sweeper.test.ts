import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { deferred, recordingLogger } from "../../test/fixtures/claimed-delivery.js";
import { InvalidRetentionError } from "../errors.js";
import type { SweepOptions, SweepResult } from "../outbox.js";
import {
  createRetentionSweeper,
  DEFAULT_RETENTION_MS,
  DEFAULT_SWEEP_BATCH_SIZE,
  type RetentionSweeperOptions,
  type SweepEvent,
} from "./create-retention-sweeper.js";

/** An outbox's sweep over a pile of finished deliveries (3 attempts each) and their messages, in memory. */
function fakeOutbox(deliveries: number, messages = deliveries) {
  const left = { deliveries, messages };
  const calls: SweepOptions[] = [];
  let open = 0;
  let mostAtOnce = 0;
  const outbox = {
    calls,
    left,
    mostAtOnce: () => mostAtOnce,
    // The next call's answer, when a test wants to hold or fail it.
    next: undefined as (() => Promise<SweepResult>) | undefined,
    async sweep(options: SweepOptions): Promise<SweepResult> {
      calls.push(options);
      open += 1;
      mostAtOnce = Math.max(mostAtOnce, open);
      try {
        const held = outbox.next;
        outbox.next = undefined;
        if (held) return await held();
        const size = options.batchSize ?? DEFAULT_SWEEP_BATCH_SIZE;
        const d = Math.min(size, left.deliveries);
        const m = Math.min(size, left.messages);
        left.deliveries -= d;
        left.messages -= m;
        return { deliveries: d, attempts: 3 * d, messages: m };
      } finally {
        open -= 1;
      }
    },
  };
  return outbox;
}

function setUp(outbox: ReturnType<typeof fakeOutbox>, options: Partial<RetentionSweeperOptions> = {}) {
  const events: SweepEvent[] = [];
  const logger = recordingLogger();
  const sweeper = createRetentionSweeper({
    maxAgeMs: 4_000,
    batchSize: 10,
    outbox,
    logger,
    onSweep: (event) => events.push(event),
    ...options,
  });
  return { sweeper, events, logger };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("createRetentionSweeper", () => {
  it("sweeps every interval, batch after batch while a batch comes back full, and reports the totals", async () => {
    const outbox = fakeOutbox(25);
    const { sweeper, events, logger } = setUp(outbox);
    sweeper.start();
    expect(sweeper.intervalMs).toBe(1_000);
    await vi.advanceTimersByTimeAsync(999);
    expect(outbox.calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(outbox.calls).toEqual([
      { olderThanMs: 4_000, batchSize: 10 },
      { olderThanMs: 4_000, batchSize: 10 },
      { olderThanMs: 4_000, batchSize: 10 },
    ]);
    expect(outbox.left.deliveries).toBe(0);
    expect(events).toEqual([
      { deliveries: 25, attempts: 75, messages: 25, batches: 3, durationMs: expect.any(Number) },
    ]);
    expect(logger.lines).toEqual([
      {
        level: "info",
        message: "retention sweep",
        fields: expect.objectContaining({ deliveries: 25, attempts: 75, messages: 25 }),
      },
    ]);

    // The next interval finds nothing: reported, but not logged.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(outbox.calls).toHaveLength(4);
    expect(events.at(-1)).toMatchObject({ deliveries: 0, attempts: 0, messages: 0, batches: 1 });
    expect(logger.lines).toHaveLength(1);
    await sweeper.stop();
  });

  it("counts a batch full of messages alone as full", async () => {
    const outbox = fakeOutbox(0, 15);
    const { sweeper, events } = setUp(outbox);
    sweeper.start();
    await vi.advanceTimersByTimeAsync(1_100);
    expect(events).toMatchObject([{ deliveries: 0, messages: 15, batches: 2 }]);
    await sweeper.stop();
  });

  it("lets other work of the event loop run between two batches", async () => {
    const outbox = fakeOutbox(25);
    const order: string[] = [];
    const sweep = outbox.sweep;
    outbox.sweep = async (options) => {
      order.push("batch");
      // Work arriving while a batch runs (a finished attempt, a claim) is queued behind it.
      setImmediate(() => order.push("other work"));
      return sweep(options);
    };
    const { sweeper } = setUp(outbox);
    sweeper.start();
    await vi.advanceTimersByTimeAsync(1_100);
    expect(order).toEqual(["batch", "other work", "batch", "other work", "batch", "other work"]);
    await sweeper.stop();
  });

  it("defaults to a quarter of the age between sweeps, at least 250 ms and at most a minute, and 500 a batch", async () => {
    const outbox = fakeOutbox(0);
    const interval = (maxAgeMs: number) => createRetentionSweeper({ outbox, maxAgeMs }).intervalMs;
    expect(interval(8_000)).toBe(2_000);
    expect(interval(400)).toBe(250);
    expect(interval(DEFAULT_RETENTION_MS)).toBe(60_000);
    expect(createRetentionSweeper({ outbox, maxAgeMs: 1_000, intervalMs: 5_000 }).intervalMs).toBe(5_000);

    const sweeper = createRetentionSweeper({ outbox, maxAgeMs: 2_000 });
    sweeper.start();
    await vi.advanceTimersByTimeAsync(500);
    expect(outbox.calls).toEqual([{ olderThanMs: 2_000, batchSize: 500 }]);
    await sweeper.stop();
  });

  it("warns on a failed sweep and tries again at the next interval", async () => {
    const outbox = fakeOutbox(5);
    const { sweeper, events, logger } = setUp(outbox);
    outbox.next = () => Promise.reject(new Error("database is locked"));
    sweeper.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(events).toEqual([]);
    expect(logger.lines).toMatchObject([
      { level: "warn", message: "retention sweep failed, retrying at the next interval" },
    ]);
    expect(logger.lines[0]?.fields.err).toMatchObject({ message: "database is locked" });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(events).toMatchObject([{ deliveries: 5 }]);
    await sweeper.stop();
  });

  it("never overlaps itself: the next sweep is an interval after a slow one ends", async () => {
    const outbox = fakeOutbox(5);
    const { sweeper, events } = setUp(outbox);
    const slow = deferred<SweepResult>();
    outbox.next = () => slow.promise;
    sweeper.start();
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(outbox.calls).toHaveLength(1);
    slow.resolve({ deliveries: 1, attempts: 1, messages: 1 });
    await vi.advanceTimersByTimeAsync(999);
    expect(outbox.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(outbox.calls).toHaveLength(2);
    expect(outbox.mostAtOnce()).toBe(1);
    expect(events).toHaveLength(2);
    await sweeper.stop();
  });

  it("stop() waits for the batch in progress, sweeps no further batch and sets no further sweep", async () => {
    const outbox = fakeOutbox(100);
    const { sweeper, events } = setUp(outbox);
    const held = deferred<SweepResult>();
    outbox.next = () => held.promise;
    sweeper.start();
    await vi.advanceTimersByTimeAsync(1_000);
    let stopped = false;
    const stopping = sweeper.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(stopped).toBe(false);
    // A full batch: a running sweeper would ask for the next one.
    held.resolve({ deliveries: 10, attempts: 30, messages: 10 });
    await stopping;
    expect(outbox.calls).toHaveLength(1);
    expect(events).toMatchObject([{ deliveries: 10, batches: 1 }]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(outbox.calls).toHaveLength(1);
  });

  it("starts again after a stop", async () => {
    const outbox = fakeOutbox(5);
    const { sweeper, events } = setUp(outbox);
    sweeper.start();
    await sweeper.stop();
    sweeper.start();
    sweeper.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(outbox.calls).toHaveLength(1);
    expect(events).toHaveLength(1);
    await sweeper.stop();
  });

  it("does not keep the process alive", async () => {
    vi.useRealTimers();
    const set = vi.spyOn(globalThis, "setTimeout");
    const { sweeper } = setUp(fakeOutbox(0), { intervalMs: 60_000 });
    sweeper.start();
    await Promise.resolve();
    await Promise.resolve();
    const handle = set.mock.results.at(-1)?.value as NodeJS.Timeout;
    expect(handle.hasRef()).toBe(false);
    await sweeper.stop();
  });

  it("refuses an age, interval or batch size it cannot sweep by", () => {
    const outbox = fakeOutbox(0);
    for (const bad of [
      { maxAgeMs: 0 },
      { maxAgeMs: Number.NaN },
      { maxAgeMs: 1_000, intervalMs: -1 },
      { maxAgeMs: 1_000, batchSize: 0.5 },
    ]) {
      expect(() => createRetentionSweeper({ outbox, ...bad })).toThrow(InvalidRetentionError);
    }
    expect(() => createRetentionSweeper({ outbox, maxAgeMs: -5 })).toThrow(
      expect.objectContaining({ code: "ERR_INVALID_RETENTION", message: expect.stringMatching(/maxAgeMs/) }),
    );
  });
});
