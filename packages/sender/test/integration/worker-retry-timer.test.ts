import { waitFor } from "@plant-store/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createRetryPolicy, createSsrfGuard, createWorker, type Outbox } from "../../src/index.js";
import { enqueuePlant } from "../fixtures/enqueue-plant.js";
import { openSqlitePipe } from "../fixtures/open-sqlite-pipe.js";

describe("a worker's retry timer", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("wakes for a retry that a store wrote from its own, later time of writing", async () => {
    const pipe = await openSqlitePipe();
    cleanups.push(() => pipe.close());
    const { outbox, receiver } = pipe;
    let calls = 0;
    receiver.respond((_request, response) => {
      calls += 1;
      response.writeHead(calls === 1 ? 503 : 200).end();
    });

    // The store decides the retry on its own clock when it writes, which here is 300 ms after the
    // attempt ended: the retry is due 300 ms later than the attempt's end plus the delay.
    const lateClock: Outbox = {
      ...outbox,
      async recordAttempts(reports, options) {
        // A real wait: a store clock set ahead would not catch a worker timing the retry from the
        // attempt's end; only a record that takes real time on the worker's own timers does.
        await new Promise((resolve) => setTimeout(resolve, 300));
        return outbox.recordAttempts(reports, options);
      },
    };
    const worker = createWorker({
      outbox: lateClock,
      policy: createRetryPolicy({ schedule: "0,200ms", jitter: 0 }),
      ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
      // Only the retry timer can bring the second attempt within the test's time.
      pollIntervalMs: 3_600_000,
    });
    worker.start();
    cleanups.push(() => worker.stop());

    const { deliveries } = await enqueuePlant(outbox, { name: "Retried when due by the store's clock" });
    const delivered = await waitFor(async () => {
      const [found] = await outbox.listDeliveries({ status: "delivered" });
      return found;
    }, 10_000);
    expect(delivered.id).toBe(deliveries[0]?.id);
    expect(delivered.attemptCount).toBe(2);
    expect(calls).toBe(2);
  });

  it("wakes for a retry even when its timer fires a little before the retry is due", async () => {
    const pipe = await openSqlitePipe();
    cleanups.push(() => pipe.close());
    const { outbox, receiver } = pipe;
    let calls = 0;
    receiver.respond((_request, response) => {
      calls += 1;
      response.writeHead(calls === 1 ? 503 : 200).end();
    });
    // Node's timers run on the loop's monotonic millisecond clock and `Date.now()` on the wall clock,
    // each rounded down on its own: a timer may fire up to a millisecond before `Date.now()` says its
    // time has come, which a loaded CI machine hit. Here every timer fires 5 ms early.
    const realSetTimeout = globalThis.setTimeout;
    vi.stubGlobal("setTimeout", ((fn: () => void, ms?: number) =>
      realSetTimeout(fn, Math.max(0, (ms ?? 0) - 5))) as typeof setTimeout);
    cleanups.push(() => {
      vi.unstubAllGlobals();
    });

    const worker = createWorker({
      outbox,
      policy: createRetryPolicy({ schedule: "0,100ms", jitter: 0 }),
      ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
      pollIntervalMs: 3_600_000,
    });
    worker.start();
    cleanups.push(() => worker.stop());

    await enqueuePlant(outbox, { name: "Retried although the timer was early" });
    const delivered = await waitFor(async () => {
      const [found] = await outbox.listDeliveries({ status: "delivered" });
      return found;
    }, 10_000);
    expect(delivered.attemptCount).toBe(2);
    expect(calls).toBe(2);
  });
});
