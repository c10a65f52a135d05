import { waitFor } from "@plant-store/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createRetryPolicy, createSsrfGuard, createWorker, type Outbox } from "../../src/index.js";
import { enqueuePlant } from "../fixtures/enqueue-plant.js";
import { openSqlitePipe } from "../fixtures/open-sqlite-pipe.js";

describe("a worker whose store cannot record an attempt for a while", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("keeps retrying the record under its lease, so the delivery ends delivered after one request", async () => {
    const pipe = await openSqlitePipe();
    cleanups.push(() => pipe.close());
    const { outbox, receiver } = pipe;
    const { deliveries } = await enqueuePlant(outbox, { name: "Recorded late" });

    // The first six records fail as a read-only file would (more than the three a stopping worker tries).
    let failures = 0;
    const broken: Outbox = {
      ...outbox,
      async recordAttempts(reports, options) {
        if (failures < 6) {
          failures += 1;
          throw Object.assign(new Error("attempt to write a readonly database"), { code: "SQLITE_READONLY" });
        }
        return outbox.recordAttempts(reports, options);
      },
    };
    const worker = createWorker({
      outbox: broken,
      policy: createRetryPolicy({ schedule: "0", jitter: 0 }),
      ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
      pollIntervalMs: 60_000,
      leaseMs: 60_000,
    });
    worker.start();
    cleanups.push(() => worker.stop());

    const id = deliveries[0]?.id ?? 0;
    const [delivered] = await waitFor(async () => {
      const attempts = await outbox.listAttempts(id);
      return attempts.length > 0 ? attempts : undefined;
    }, 20_000);
    expect(failures).toBe(6);
    expect(delivered?.status).toBe(200);
    expect(receiver.requests).toHaveLength(1);
    const [again] = await outbox.claimDue({ workerId: "another-worker", limit: 10, leaseMs: 60_000 });
    expect(again).toBeUndefined();
  });
});
