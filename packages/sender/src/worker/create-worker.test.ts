import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { deferred } from "../../test/fixtures/claimed-delivery.js";
import { createMemoryOutbox } from "../../test/fixtures/memory-outbox.js";
import { InvalidRetentionError } from "../errors.js";
import type { SweepResult } from "../outbox.js";
import { DEFAULT_RETENTION_MS, type SweepEvent } from "./create-retention-sweeper.js";
import { createWorker, defaultPerOwner } from "./create-worker.js";

beforeEach(() => {
  // setImmediate stays real: the worker's round trips start on the next turn of the event loop.
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

// The worker's wiring of retention; the sweeper itself is tested in create-retention-sweeper.test.ts.
describe("createWorker: retention", () => {
  it("sweeps deliveries older than 30 days by default, once a minute, and reports each sweep", async () => {
    const outbox = createMemoryOutbox();
    const sweeps: SweepEvent[] = [];
    const worker = createWorker({ outbox, onSweep: (event) => sweeps.push(event) });
    worker.start();
    await vi.advanceTimersByTimeAsync(59_999);
    expect(outbox.sweeps).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(outbox.sweeps).toEqual([{ olderThanMs: DEFAULT_RETENTION_MS, batchSize: 500 }]);
    expect(sweeps).toMatchObject([{ deliveries: 0, attempts: 0, messages: 0, batches: 1 }]);
    await worker.stop();
  });

  it("sweeps by the given retention", async () => {
    const outbox = createMemoryOutbox();
    const worker = createWorker({ outbox, retention: { maxAgeMs: 2_000, batchSize: 50 } });
    worker.start();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(outbox.sweeps).toEqual([
      { olderThanMs: 2_000, batchSize: 50 },
      { olderThanMs: 2_000, batchSize: 50 },
    ]);
    await worker.stop();
  });

  it("keeps everything with retention: false", async () => {
    const outbox = createMemoryOutbox();
    const worker = createWorker({ outbox, retention: false });
    worker.start();
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(outbox.sweeps).toEqual([]);
    await worker.stop();
  });

  it("sweeps only while started: stop() waits for a sweep in progress and ends the sweeping", async () => {
    const outbox = createMemoryOutbox();
    const held = deferred<SweepResult>();
    outbox.sweepAnswer = () => held.promise;
    const worker = createWorker({ outbox, retention: { maxAgeMs: 1_000 } });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(outbox.sweeps).toEqual([]);

    worker.start();
    await vi.advanceTimersByTimeAsync(250);
    expect(outbox.sweeps).toHaveLength(1);
    let stopped = false;
    const stopping = worker.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(stopped).toBe(false);
    held.resolve({ deliveries: 500, attempts: 500, messages: 500 });
    await stopping;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(outbox.sweeps).toHaveLength(1);
  });

  it("refuses a retention it cannot sweep by when created, not when started", () => {
    const outbox = createMemoryOutbox();
    expect(() => createWorker({ outbox, retention: { maxAgeMs: 0 } })).toThrow(InvalidRetentionError);
    expect(() => createWorker({ outbox, retention: { maxAgeMs: 1_000, intervalMs: Number.NaN } })).toThrow(
      expect.objectContaining({ code: "ERR_INVALID_RETENTION" }),
    );
  });
});

describe("createWorker: claimAhead", () => {
  it("refuses a claimAhead that is not a whole number, 0 or more, when created", () => {
    const outbox = createMemoryOutbox();
    for (const claimAhead of [-1, 1.5, Number.NaN])
      expect(() => createWorker({ outbox, claimAhead })).toThrow(
        expect.objectContaining({ code: "ERR_INVALID_WORKER_OPTION", name: "InvalidWorkerOptionError" }),
      );
    expect(() => createWorker({ outbox, claimAhead: 0 })).not.toThrow();
  });
});

describe("createWorker: perOwnerConcurrency", () => {
  it("refuses a perOwnerConcurrency that is not a whole number, 1 or more, when created", () => {
    const outbox = createMemoryOutbox();
    for (const perOwnerConcurrency of [0, -1, 1.5, Number.NaN])
      expect(() => createWorker({ outbox, perOwnerConcurrency })).toThrow(
        expect.objectContaining({ code: "ERR_INVALID_WORKER_OPTION", name: "InvalidWorkerOptionError" }),
      );
    expect(() => createWorker({ outbox, perOwnerConcurrency: 1 })).not.toThrow();
  });

  it("lets one owner hold all but a quarter of the slots by default, at least one", () => {
    expect(defaultPerOwner(16)).toBe(12);
    expect(defaultPerOwner(50)).toBe(38);
    expect(defaultPerOwner(4)).toBe(3);
    expect(defaultPerOwner(3)).toBe(2);
    expect(defaultPerOwner(2)).toBe(1);
    expect(defaultPerOwner(1)).toBe(1);
  });
});
