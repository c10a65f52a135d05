import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunningApp } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, describe, expect, it } from "vitest";
import {
  addEndpoint,
  addPlants,
  countDeliveries,
  receiverStats,
  SOAK,
  startFlakyReceiver,
  startStore,
  waitForAllDelivered,
} from "./fixtures/pipe.js";

const PLANTS = SOAK ? 1000 : 300;

describe("a flaky receiver: 500s before and after the handler, reset connections, answers past the timeout", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-flaky-"));
  const apps: RunningApp[] = [];

  afterAll(async () => {
    for (const app of apps) await app.stop(2_000);
    rmSync(dir, { recursive: true, force: true });
  });

  it(`every one of ${PLANTS} plants reaches the handler exactly once and every delivery ends delivered`, async () => {
    const started = Date.now();
    const db = join(dir, "store.db");
    const secret = generateWebhookSecret();
    const token = "flaky-token";
    const receiver = await startFlakyReceiver({
      db: join(dir, "receiver.db"),
      token,
      secret,
      seed: Number(process.env.PLANT_SEED ?? 42),
      reset: 0.1,
      failBefore: 0.17,
      failAfter: 0.16,
      slow: 0.05,
      slowMs: 700,
    });
    apps.push(receiver);
    await addEndpoint(db, receiver.url, token, secret);
    // Twenty attempts against a ~48 % failure rate: the chance one plant exhausts them is below 1e-6.
    const schedule = ["0", "50ms", "100ms", ...Array(17).fill("200ms")].join(",");
    const store = await startStore([
      ...["--db", db, "--retry-schedule", schedule, "--timeout", "300ms", "--lease", "5s"],
      ...["--concurrency", "16", "--per-endpoint-concurrency", "16"],
    ]);
    apps.push(store);
    const ids = await addPlants(store.url, PLANTS, "Flaky plant");

    const stats = await waitForAllDelivered(db, receiver, PLANTS, SOAK ? 600_000 : 100_000);
    expect(await countDeliveries(db, "failed")).toBe(0);
    expect(await countDeliveries(db, "pending")).toBe(0);
    expect(stats.distinctIds).toBe(PLANTS);
    expect(stats.duplicates).toEqual([]);
    expect(stats.handlerCalls).toBe(ids.length);
    // Each kind of fault really happened, or the test proved nothing.
    expect(stats.faults.reset).toBeGreaterThan(0);
    expect(stats.faults.failBefore).toBeGreaterThan(0);
    expect(stats.faults.failAfter).toBeGreaterThan(0);
    expect(stats.faults.slow).toBeGreaterThan(0);
    expect(stats.maxConcurrencyPerId).toBe(1);
    expect(await store.stop()).toBe(0);
    const after = await receiverStats(receiver);
    process.stdout.write(
      `${JSON.stringify({ scenario: "flaky-receiver", plants: PLANTS, requests: after.requests, faults: after.faults, handlerCalls: after.handlerCalls, seconds: (Date.now() - started) / 1000 })}\n`,
    );
  });
});
