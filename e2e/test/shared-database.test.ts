import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { readAppEvent } from "@plant-store/app-shell";
import {
  type AppLogLine,
  type RunningApp,
  resolveAppCli,
  spawnApp,
  startPostgres,
  type TestPostgres,
  waitFor,
} from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);

// The store keeps its queue in webhook_* tables and its plants in store_plants; the receiver keeps
// plants and plant_webhook_dedup: one PostgreSQL database can hold both apps.
describe("the store and the receiver on one PostgreSQL database", () => {
  let postgres: TestPostgres;
  const apps: RunningApp[] = [];

  beforeAll(async () => {
    postgres = await startPostgres();
  });

  afterAll(async () => {
    for (const app of apps) await app.stop(2_000);
    await postgres?.stop();
  });

  it("start side by side, and every plant the store adds is received once", async () => {
    const db = await postgres.createDatabase();
    const token = "shared-db-token";
    const secret = generateWebhookSecret();
    const received = new Map<string, number>();
    const receiver = await spawnApp("receiver", resolveAppCli("plant-receiver", import.meta.url), [
      ...["--port", "0", "--db", db, "--token", token, "--secret", secret],
    ]);
    apps.push(receiver);
    receiver.onLine((line: AppLogLine) => {
      const event = readAppEvent(line);
      if (event?.event === "plant.stored")
        received.set(event.webhookId, (received.get(event.webhookId) ?? 0) + 1);
    });
    const storeCli = resolveAppCli("plant-store", import.meta.url);
    const store = await spawnApp("store", storeCli, [
      ...[
        "serve",
        "--port",
        "0",
        "--db",
        db,
        "--admin-token",
        "admin-token-0123456789",
        "--allow-private-targets",
      ],
    ]);
    apps.push(store);
    await run(process.execPath, [
      ...[
        storeCli,
        "endpoints",
        "add",
        `${receiver.url}/plant/webhook`,
        "--token",
        token,
        "--secret",
        secret,
      ],
      ...["--db", db],
    ]);
    const added: string[] = [];
    for (let index = 0; index < 5; index++) {
      const { stdout } = await run(process.execPath, [
        ...[storeCli, "plants", "add", "--name", `Shared ${index}`, "--db", db, "--json"],
      ]);
      added.push((JSON.parse(stdout) as { plant: { webhookId: string } }).plant.webhookId);
    }
    await waitFor(() => (added.every((id) => received.has(id)) ? true : undefined), 30_000);
    expect(added.map((id) => received.get(id))).toEqual([1, 1, 1, 1, 1]);
    const pool = new pg.Pool({ connectionString: db });
    try {
      const { rows } = await pool.query<{ name: string }>(
        "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
      );
      expect(rows.map((row) => row.name)).toEqual(
        expect.arrayContaining(["plants", "store_plants", "webhook_messages", "webhook_deliveries"]),
      );
      expect((await pool.query("SELECT count(*)::int AS n FROM plants")).rows[0]?.n).toBe(5);
      expect((await pool.query("SELECT count(*)::int AS n FROM store_plants")).rows[0]?.n).toBe(5);
    } finally {
      await pool.end();
    }
  });
});
