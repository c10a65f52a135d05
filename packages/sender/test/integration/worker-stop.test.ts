import { afterEach, describe, expect, it } from "vitest";
import { createRetryPolicy, createSsrfGuard, createWorker, type Outbox } from "../../src/index.js";
import { enqueuePlant } from "../fixtures/enqueue-plant.js";
import { openSqlitePipe } from "../fixtures/open-sqlite-pipe.js";

describe("Worker.stop()", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("waits for a claim in progress and gives back what it returns without attempting it", async () => {
    const pipe = await openSqlitePipe();
    cleanups.push(() => pipe.close());
    const { outbox, receiver } = pipe;
    const { deliveries } = await enqueuePlant(outbox, { name: "Claimed while stopping" });

    // The claim is held open until stop() has been called, as a slow database would hold it.
    let claimStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      claimStarted = resolve;
    });
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    const slow: Outbox = {
      ...outbox,
      async claimDue(...args) {
        claimStarted();
        await gate;
        return outbox.claimDue(...args);
      },
    };
    const worker = createWorker({
      outbox: slow,
      policy: createRetryPolicy({ schedule: "0", jitter: 0 }),
      ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
      pollIntervalMs: 60_000,
    });
    worker.start();
    await started;

    let stopped = false;
    const stopping = worker.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    openGate();
    await stopping;

    // Nothing was sent and nothing recorded; the delivery is free for the next worker at once.
    expect(receiver.requests).toHaveLength(0);
    expect(await outbox.listAttempts(deliveries[0]?.id ?? 0)).toEqual([]);
    const [next] = await outbox.claimDue({ workerId: "next-worker", limit: 10, leaseMs: 60_000 });
    expect(next?.id).toBe(deliveries[0]?.id);
    expect(next?.attemptCount).toBe(0);
  });
});
