import { createPostgresOutbox, type PostgresOutbox } from "@plant-store/sender/postgres";
import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { generateWebhookSecret, PLANT_STORE_WEBHOOKS, type PlantStoreEvents } from "@plant-store/types";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresPlantCatalog } from "../../src/create-postgres-plant-catalog.js";
import type { PlantCatalog } from "../../src/plant-catalog.js";

/**
 * How the PostgreSQL store writes a group of plants that arrived together: on the writer's pipelined
 * connection, in a fixed number of statements, and all of it or nothing.
 */
let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
});

interface Catalog {
  plants: PlantCatalog;
  outbox: PostgresOutbox<PlantStoreEvents>;
  pool: pg.Pool;
  /** Statements the writer's connection was sent so far. */
  sent: () => number;
  close(): Promise<void>;
}

/** The store's catalog as `openStore` makes it, with the statements its writer sends counted. */
async function openCatalog(): Promise<Catalog> {
  const url = await postgres.createDatabase();
  const pool = new pg.Pool({ connectionString: url });
  const writer = new pg.Pool({ connectionString: url, max: 1, pipeline: true });
  let sent = 0;
  writer.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      sent += 1;
      return query(...args);
    };
  });
  const outbox = await createPostgresOutbox(pool, { catalog: PLANT_STORE_WEBHOOKS });
  await outbox.addEndpoint({
    url: "http://127.0.0.1:9/hook",
    token: "t",
    secrets: [generateWebhookSecret()],
  });
  const plants = await createPostgresPlantCatalog(pool, outbox, writer);
  return {
    plants,
    outbox,
    pool,
    sent: () => sent,
    async close() {
      await outbox.close();
      await writer.end();
      await pool.end();
    },
  };
}

describe("a group of plants on PostgreSQL", () => {
  it("is written in five statements whatever its size, and a group of replays only in one, with no transaction", async () => {
    const catalog = await openCatalog();
    try {
      // The first add reads the outbox's copy of the filter set.
      await catalog.plants.add({ name: "First" });
      let before = catalog.sent();
      const added = await Promise.all(
        Array.from({ length: 12 }, (_, index) => catalog.plants.add({ name: `Grouped ${index}` })),
      );
      // BEGIN with the ids, the messages and deliveries, the plants with COMMIT.
      expect(catalog.sent() - before).toBe(5);
      expect(added.map((result) => result.queued)).toEqual(Array(12).fill(1));
      expect(new Set(added.map((result) => result.plant.createdAt.getTime())).size).toBe(1);

      const first = await catalog.plants.add({ name: "Keyed" }, "key-1");
      before = catalog.sent();
      const replays = await Promise.all(
        Array.from({ length: 3 }, () => catalog.plants.add({ name: "Keyed" }, "key-1")),
      );
      // The keys looked up, nothing written.
      expect(catalog.sent() - before).toBe(1);
      expect(replays).toEqual(Array(3).fill({ ...first, replayed: true }));
    } finally {
      await catalog.close();
    }
  });

  it("is rolled back whole when the database refuses one of its plants at their insert: no message without its plant, the others added alone", async () => {
    const catalog = await openCatalog();
    try {
      await catalog.pool.query("ALTER TABLE store_plants ADD CONSTRAINT not_doomed CHECK (name <> 'Doomed')");
      const names = ["Fern", "Doomed", "Ivy", "Moss"];
      const outcomes = await Promise.allSettled(names.map((name) => catalog.plants.add({ name })));
      expect(outcomes.map((outcome) => outcome.status)).toEqual([
        "fulfilled",
        "rejected",
        "fulfilled",
        "fulfilled",
      ]);
      expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: "23514" });
      const plants = await catalog.plants.list(100);
      expect(plants.map((plant) => plant.name).sort()).toEqual(["Fern", "Ivy", "Moss"]);
      const { rows } = await catalog.pool.query<{ name: string; webhook_id: string }>(
        "SELECT payload::json->>'name' AS name, webhook_id FROM webhook_messages ORDER BY id",
      );
      expect(rows.map((row) => row.name).sort()).toEqual(["Fern", "Ivy", "Moss"]);
      for (const plant of plants) expect(rows.map((row) => row.webhook_id)).toContain(plant.webhookId);
      const deliveries = await catalog.outbox.listDeliveries({ limit: 100 });
      expect(deliveries).toHaveLength(3);
    } finally {
      await catalog.close();
    }
  });
});
