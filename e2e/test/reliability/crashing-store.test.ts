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

const ROUNDS = SOAK ? 10 : 4;
const PER_ROUND = SOAK ? 100 : 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function sigkill(app: RunningApp): Promise<void> {
  if (app.child.exitCode !== null || app.child.signalCode !== null) return;
  const exited = new Promise((resolve) => app.child.once("exit", resolve));
  app.child.kill("SIGKILL");
  await exited;
}

describe("plant-store serve killed with SIGKILL at random moments and restarted on the same SQLite file", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-crash-"));
  const apps: RunningApp[] = [];

  afterAll(async () => {
    for (const app of apps) await app.stop(2_000);
    rmSync(dir, { recursive: true, force: true });
  });

  it("loses nothing and the handler sees every plant once", async () => {
    const started = Date.now();
    const db = join(dir, "store.db");
    const secret = generateWebhookSecret();
    const token = "crash-token";
    // Slow answers keep deliveries in flight when the kill comes; failures after the handler make
    // re-sends that only de-duplication can absorb.
    const receiver = await startFlakyReceiver({
      db: join(dir, "receiver.db"),
      token,
      secret,
      seed: 7,
      failAfter: 0.1,
      delayMs: 40,
    });
    apps.push(receiver);
    await addEndpoint(db, receiver.url, token, secret);
    const args = [
      ...["--db", db, "--retry-schedule", ["0", ...Array(15).fill("100ms")].join(",")],
      ...["--timeout", "500ms", "--lease", "1500ms", "--per-endpoint-concurrency", "4"],
    ];
    const ids: string[] = [];
    let kills = 0;
    let inFlightAtKills = 0;
    let random = 12345;
    const nextRandom = () => {
      random = (random * 1103515245 + 12345) % 2147483648;
      return random / 2147483648;
    };
    for (let round = 0; round < ROUNDS; round++) {
      const store = await startStore(args);
      apps.push(store);
      ids.push(...(await addPlants(store.url, PER_ROUND, `Crash plant r${round}`)));
      if (round === ROUNDS - 1) break;
      // A real wait: the kill must land at a random moment of real work, not at an event's.
      await sleep(100 + Math.floor(nextRandom() * 600));
      inFlightAtKills += (await receiverStats(receiver)).inFlightIds.length;
      await sigkill(store);
      kills += 1;
    }
    const stats = await waitForAllDelivered(db, receiver, ids.length, SOAK ? 600_000 : 100_000);
    expect(kills).toBeGreaterThanOrEqual(3);
    // The kills landed mid-delivery, not between deliveries.
    expect(inFlightAtKills).toBeGreaterThan(0);
    expect(await countDeliveries(db, "failed")).toBe(0);
    expect(stats.distinctIds).toBe(ids.length);
    expect(stats.duplicates).toEqual([]);
    expect(stats.handlerCalls).toBe(ids.length);
    expect(await (apps.at(-1) as RunningApp).stop()).toBe(0);
    process.stdout.write(
      `${JSON.stringify({ scenario: "crashing-store", plants: ids.length, kills, inFlightAtKills, requests: stats.requests, faults: stats.faults, handlerCalls: stats.handlerCalls, seconds: (Date.now() - started) / 1000 })}\n`,
    );
  });
});
