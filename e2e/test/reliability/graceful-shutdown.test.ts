import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunningApp } from "@plant-store/testing";
import { waitFor } from "@plant-store/testing";
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

const PLANTS = SOAK ? 400 : 80;
// The lease is far longer than the wait allowed for the rest after the restart: claims given back at
// SIGTERM must be taken at once, not after the lease runs out.
const LEASE = SOAK ? "600s" : "30s";
const WAIT_MS = SOAK ? 300_000 : 25_000;

describe("plant-store serve stopped with SIGTERM while deliveries are in flight", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-sigterm-"));
  const apps: RunningApp[] = [];

  afterAll(async () => {
    for (const app of apps) await app.stop(2_000);
    rmSync(dir, { recursive: true, force: true });
  });

  it("exits 0 and, once restarted, delivers every plant exactly once", async () => {
    const started = Date.now();
    const db = join(dir, "store.db");
    const secret = generateWebhookSecret();
    const token = "sigterm-token";
    const receiver = await startFlakyReceiver({ db: join(dir, "receiver.db"), token, secret, delayMs: 300 });
    apps.push(receiver);
    await addEndpoint(db, receiver.url, token, secret);
    const args = ["--db", db, "--timeout", "5s", "--lease", LEASE, "--per-endpoint-concurrency", "4"];
    const first = await startStore(args);
    apps.push(first);
    const ids = await addPlants(first.url, PLANTS, "Graceful plant");
    await waitFor(async () => {
      const stats = await receiverStats(receiver);
      return stats.inFlightIds.length > 0 && stats.handlerCalls > 0 ? true : undefined;
    }, 30_000);
    const inFlightAtSigterm = (await receiverStats(receiver)).inFlightIds.length;
    expect(await first.stop(30_000)).toBe(0);
    expect(first.lines.some((line) => line.msg === "stopped")).toBe(true);
    const handledBeforeRestart = (await receiverStats(receiver)).handlerCalls;
    // Work was really left over, so the restart has something to prove.
    expect(await countDeliveries(db, "pending")).toBeGreaterThan(0);

    const second = await startStore(args);
    apps.push(second);
    const stats = await waitForAllDelivered(db, receiver, PLANTS, WAIT_MS);
    expect(stats.distinctIds).toBe(ids.length);
    expect(stats.duplicates).toEqual([]);
    expect(stats.handlerCalls).toBe(ids.length);
    // Attempts in flight at SIGTERM were finished, not cut off and sent again.
    expect(stats.requests).toBe(ids.length);
    expect(await countDeliveries(db, "failed")).toBe(0);
    expect(await second.stop()).toBe(0);
    process.stdout.write(
      `${JSON.stringify({ scenario: "graceful-shutdown", plants: PLANTS, inFlightAtSigterm, handledBeforeRestart, requests: stats.requests, handlerCalls: stats.handlerCalls, seconds: (Date.now() - started) / 1000 })}\n`,
    );
  });
});
