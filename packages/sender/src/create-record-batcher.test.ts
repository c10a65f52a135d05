import { afterEach, describe, expect, it, vi } from "vitest";
import { recordingLogger } from "../test/fixtures/claimed-delivery.js";
import { createRecordBatcher } from "./create-record-batcher.js";
import type { RecordAttemptInput, RecordedAttempt } from "./outbox.js";

const input = (deliveryId: number, extra: Partial<RecordAttemptInput> = {}): RecordAttemptInput => ({
  deliveryId,
  workerId: "w1",
  attempt: { startedAt: new Date(), durationMs: 3, status: 200, error: null, responseBody: "" },
  outcome: "delivered",
  endpointSucceeded: true,
  ...extra,
});

/** The two record methods of an Outbox, in memory, failing when told to. */
function fakeOutbox() {
  const calls: { many: number[][]; one: number[] } = { many: [], one: [] };
  const failing = { many: false, ids: new Set<number>() };
  const stored = (item: RecordAttemptInput): RecordedAttempt => ({ held: true, outcome: item.outcome });
  return {
    calls,
    failing,
    async recordAttempt(item: RecordAttemptInput) {
      calls.one.push(item.deliveryId);
      if (failing.ids.has(item.deliveryId)) throw new Error(`cannot record ${item.deliveryId}`);
      return stored(item);
    },
    async recordAttempts(items: readonly RecordAttemptInput[]) {
      calls.many.push(items.map((item) => item.deliveryId));
      if (failing.many || items.some((item) => failing.ids.has(item.deliveryId)))
        throw new Error("batch failed");
      return items.map(stored);
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("createRecordBatcher: record", () => {
  it("records attempts finishing in one turn of the event loop with one recordAttempts call, in order", async () => {
    const outbox = fakeOutbox();
    const { record } = createRecordBatcher({ outbox, leaseMs: 60_000, isRunning: () => true });
    const results = await Promise.all([
      record(input(1)),
      record(input(2, { outcome: "retrying" })),
      record(input(3)),
    ]);
    expect(outbox.calls.many).toEqual([[1, 2, 3]]);
    expect(outbox.calls.one).toEqual([]);
    expect(results.map((result) => result.outcome)).toEqual(["delivered", "retrying", "delivered"]);
  });

  it("records a lone attempt with recordAttempt, and attempts of later turns in their own batch", async () => {
    const outbox = fakeOutbox();
    const { record } = createRecordBatcher({ outbox, leaseMs: 60_000, isRunning: () => true });
    await record(input(1));
    await Promise.all([record(input(2)), record(input(3))]);
    expect(outbox.calls.one).toEqual([1]);
    expect(outbox.calls.many).toEqual([[2, 3]]);
  });

  it("tries each attempt alone when the batch fails, so one bad record does not sink the others", async () => {
    const outbox = fakeOutbox();
    outbox.failing.ids.add(2);
    const { record } = createRecordBatcher({ outbox, leaseMs: 60_000, isRunning: () => true });
    const results = await Promise.allSettled([record(input(1)), record(input(2)), record(input(3))]);
    expect(outbox.calls.many).toEqual([[1, 2, 3]]);
    expect(outbox.calls.one.sort()).toEqual([1, 2, 3]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  });

  it("with a store that records and claims together, records with the claim ticket and one transaction at a time", async () => {
    const base = fakeOutbox();
    const combinedCalls: Array<{ ids: number[]; limit: number }> = [];
    let release: () => void = () => undefined;
    let gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const outbox = {
      ...base,
      async recordAttemptsAndClaim(items: readonly RecordAttemptInput[], claim: { limit: number }) {
        combinedCalls.push({ ids: items.map((item) => item.deliveryId), limit: claim.limit });
        await gate;
        return { recorded: items.map((item) => ({ held: true, outcome: item.outcome })), claimed: [] };
      },
    };
    const settled: Array<readonly unknown[] | undefined> = [];
    const { record } = createRecordBatcher({
      outbox,
      leaseMs: 60_000,
      isRunning: () => true,
      claimTicket: (freeing) => ({
        request: { workerId: "w1", limit: freeing.length, leaseMs: 60_000 },
        settle: (claimed) => settled.push(claimed),
      }),
    });
    const first = Promise.all([record(input(1), 7), record(input(2), 7)]);
    await new Promise((resolve) => setImmediate(resolve));
    // Finished while the first transaction runs: they wait and form the next batch together.
    const second = Promise.all([record(input(3), 7), record(input(4), 8)]);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(combinedCalls).toEqual([{ ids: [1, 2], limit: 2 }]);
    release();
    await first;
    gate = Promise.resolve();
    await second;
    expect(combinedCalls).toEqual([
      { ids: [1, 2], limit: 2 },
      { ids: [3, 4], limit: 2 },
    ]);
    expect(settled).toEqual([[], []]);
    expect(base.calls).toEqual({ many: [], one: [] });
  });

  it("reads a missing result of a batch as a lost lease", async () => {
    const outbox = fakeOutbox();
    const short = { ...outbox, recordAttempts: async () => [{ held: true, outcome: "delivered" as const }] };
    const { record } = createRecordBatcher({ outbox: short, leaseMs: 60_000, isRunning: () => true });
    const [first, second] = await Promise.all([record(input(1)), record(input(2, { outcome: "failed" }))]);
    expect(first).toEqual({ held: true, outcome: "delivered" });
    expect(second).toEqual({ held: false, outcome: "failed" });
  });
});

describe("createRecordBatcher: recordWithRetry", () => {
  it("retries a failing record with a growing pause until it is stored, warning each time", async () => {
    vi.useFakeTimers();
    const outbox = fakeOutbox();
    outbox.failing.ids.add(1);
    const logger = recordingLogger();
    const { recordWithRetry } = createRecordBatcher({
      outbox,
      leaseMs: 60_000,
      isRunning: () => true,
      logger,
    });
    const recorded = recordWithRetry(input(1));
    // Pauses of 100, 200, 300, 400 and 500 ms (each turn of fake time also takes a millisecond).
    await vi.advanceTimersByTimeAsync(1_550);
    expect(outbox.calls.one).toHaveLength(6);
    outbox.failing.ids.delete(1);
    await vi.advanceTimersByTimeAsync(600);
    await expect(recorded).resolves.toEqual({ held: true, outcome: "delivered" });
    expect(outbox.calls.one).toHaveLength(7);
    expect(logger.lines.map((line) => line.message)).toEqual(
      Array(6).fill("recording an attempt failed, retrying"),
    );
    expect(logger.lines[0]?.fields).toMatchObject({ deliveryId: 1 });
  });

  it("gives up a second before the attempt's lease ends, leaving the delivery to the lease", async () => {
    vi.useFakeTimers();
    const outbox = fakeOutbox();
    outbox.failing.ids.add(1);
    const { recordWithRetry } = createRecordBatcher({ outbox, leaseMs: 60_000, isRunning: () => true });
    // 1.5 s to retry in: pauses of 100, 200, 300 and 400 ms fit, the fifth try's 500 ms would not.
    const recorded = recordWithRetry(input(1, { leaseUntil: new Date(Date.now() + 2_500) }));
    const outcome = expect(recorded).rejects.toThrow("cannot record 1");
    await vi.advanceTimersByTimeAsync(5_000);
    await outcome;
    expect(outbox.calls.one).toHaveLength(5);
  });

  it("never retries longer than the worker's lease, whatever the attempt's lease says", async () => {
    vi.useFakeTimers();
    const outbox = fakeOutbox();
    outbox.failing.ids.add(1);
    const { recordWithRetry } = createRecordBatcher({ outbox, leaseMs: 2_500, isRunning: () => true });
    const recorded = recordWithRetry(input(1, { leaseUntil: new Date(Date.now() + 600_000) }));
    const outcome = expect(recorded).rejects.toThrow("cannot record 1");
    await vi.advanceTimersByTimeAsync(5_000);
    await outcome;
    expect(outbox.calls.one).toHaveLength(5);
  });

  it("tries three times only once the worker is stopping", async () => {
    vi.useFakeTimers();
    const outbox = fakeOutbox();
    outbox.failing.ids.add(1);
    const { recordWithRetry } = createRecordBatcher({ outbox, leaseMs: 60_000, isRunning: () => false });
    const recorded = recordWithRetry(input(1));
    const outcome = expect(recorded).rejects.toThrow("cannot record 1");
    await vi.advanceTimersByTimeAsync(5_000);
    await outcome;
    expect(outbox.calls.one).toHaveLength(3);
  });
});
