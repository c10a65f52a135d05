import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readAppEvent } from "@plant-store/app-shell";
import type { RunningApp } from "@plant-store/testing";
import { startPostgres, type TestPostgres, waitFor } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addEndpoint,
  addPlants,
  countDeliveries,
  SOAK,
  startFlakyReceiver,
  startStore,
  waitForAllDelivered,
} from "./fixtures/pipe.js";

const PLANTS = SOAK ? 600 : 120;

describe("three plant-store serve processes on one PostgreSQL, one killed with SIGKILL mid-run", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-pg-takeover-"));
  const apps: RunningApp[] = [];
  let postgres: TestPostgres;

  beforeAll(async () => {
    postgres = await startPostgres();
  });

  afterAll(async () => {
    for (const app of apps) await app.stop(2_000);
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("the others take over its leased deliveries after the lease, and no webhook id is ever in flight twice", async () => {
    const started = Date.now();
    const db = await postgres.createDatabase();
    const secret = generateWebhookSecret();
    const token = "takeover-token";
    const receiver = await startFlakyReceiver({
      db: join(dir, "receiver.db"),
      token,
      secret,
      seed: 3,
      failBefore: 0.1,
      failAfter: 0.1,
      delayMs: 150,
    });
    apps.push(receiver);
    await addEndpoint(db, receiver.url, token, secret);
    const args = [
      ...["--db", db, "--retry-schedule", ["0", ...Array(15).fill("100ms")].join(",")],
      ...["--timeout", "1s", "--lease", "2500ms", "--concurrency", "4", "--per-endpoint-concurrency", "4"],
    ];
    const stores: Array<Awaited<ReturnType<typeof startStore>>> = [];
    for (let index = 0; index < 3; index++) stores.push(await startStore(args));
    apps.push(...stores);
    const [victim, ...survivors] = stores as [(typeof stores)[0], ...typeof stores];
    const ids = await addPlants(victim.url, PLANTS, "Shared plant");

    const victimAttempt = await waitFor(() => {
      for (const line of victim.lines) {
        const event = readAppEvent(line);
        if (event?.event === "delivery.attempted") return event;
      }
      return undefined;
    }, 30_000);
    const victimId = String(victimAttempt.workerId);
    const client = new pg.Client({ connectionString: db });
    await client.connect();
    try {
      const leased = async () =>
        (
          await client.query<{ id: string }>(
            "SELECT id FROM webhook_deliveries WHERE status = 'pending' AND lease_owner = $1 AND lease_until > $2",
            [victimId, Date.now()],
          )
        ).rows.map((row) => Number(row.id));
      // Kill it while it holds claims (attempts in flight at the receiver).
      await waitFor(async () => ((await leased()).length > 0 ? true : undefined), 30_000, 5);
      victim.child.kill("SIGKILL");
      await new Promise((resolve) => victim.child.once("exit", resolve));
      const orphaned = await leased();
      expect(orphaned.length).toBeGreaterThan(0);

      const stats = await waitForAllDelivered(db, receiver, PLANTS, SOAK ? 300_000 : 90_000);
      expect(stats.distinctIds).toBe(ids.length);
      expect(stats.duplicates).toEqual([]);
      expect(stats.handlerCalls).toBe(ids.length);
      expect(stats.maxConcurrencyPerId).toBe(1);
      expect(await countDeliveries(db, "failed")).toBe(0);
      // Every delivery the victim held when it died was finished by another process.
      const takenOver = await client.query<{ id: string; worker_id: string }>(
        "SELECT delivery_id AS id, worker_id FROM webhook_attempts WHERE delivery_id = ANY($1) AND outcome = 'delivered'",
        [orphaned],
      );
      expect(takenOver.rows.map((row) => Number(row.id)).sort()).toEqual([...orphaned].sort());
      expect(takenOver.rows.every((row) => row.worker_id !== victimId)).toBe(true);
      for (const survivor of survivors) expect(await survivor.stop()).toBe(0);
      process.stdout.write(
        `${JSON.stringify({ scenario: "postgres-takeover", plants: PLANTS, orphaned: orphaned.length, requests: stats.requests, faults: stats.faults, handlerCalls: stats.handlerCalls, seconds: (Date.now() - started) / 1000 })}\n`,
      );
    } finally {
      await client.end();
    }
  });
});
