import {
  endConnections,
  startPostgres,
  startTestReceiver,
  type TestPostgres,
  type TestReceiver,
} from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createRetryPolicy, createSsrfGuard, createWorker, type Worker } from "../../src/index.js";
import {
  createPostgresOutbox,
  type PostgresOutbox,
  withClient,
  withTransaction,
} from "../../src/postgres.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
});

describe("a PostgreSQL outbox on the caller's own pool", () => {
  let pool: pg.Pool;
  let outbox: PostgresOutbox;
  let receiver: TestReceiver;
  let worker: Worker;

  beforeEach(async () => {
    pool = new pg.Pool({ connectionString: await postgres.createDatabase() });
    await pool.query("CREATE TABLE orders (id BIGSERIAL PRIMARY KEY, item TEXT NOT NULL)");
    outbox = await createPostgresOutbox(pool);
    receiver = await startTestReceiver();
    await outbox.addEndpoint({
      url: `${receiver.url}/plant/webhook`,
      token: "tok",
      secrets: [generateWebhookSecret()],
    });
    // No poll within the test: only the NOTIFY that PostgreSQL delivers on commit can start the worker.
    worker = createWorker({
      outbox,
      policy: createRetryPolicy({ schedule: "0", jitter: 0 }),
      ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
      pollIntervalMs: 60_000,
    });
    worker.start();
  });

  afterEach(async () => {
    await worker.stop();
    await receiver.close();
    await outbox.close();
    await pool.end();
  });

  async function placeOrder(client: pg.PoolClient, item: string): Promise<void> {
    const { rows } = await client.query<{ id: string }>(
      "INSERT INTO orders (item) VALUES ($1) RETURNING id",
      [item],
    );
    await outbox.enqueue({ payload: { id: Number(rows[0]?.id), name: item } }, { client });
  }

  it("queues in the caller's transaction: nothing for one rolled back, one delivery after COMMIT, none before", async () => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await placeOrder(client, "Rolled back");
      await client.query("ROLLBACK");

      await client.query("BEGIN");
      await placeOrder(client, "Committed");
      worker.wake();
      await pause(300);
      expect(receiver.requests).toHaveLength(0);
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    const [request] = await receiver.waitForRequests(1);
    expect(JSON.parse(request?.body ?? "null")).toEqual({ id: 2, name: "Committed" });
    await pause(200);
    expect(receiver.requests).toHaveLength(1);
    expect((await pool.query("SELECT item FROM orders")).rows).toEqual([{ item: "Committed" }]);
    expect(await outbox.listDeliveries()).toHaveLength(1);
  });

  it("answers a key seen in another committed transaction with its first message", async () => {
    const first = await outbox.enqueue({ payload: { id: 1 }, idempotencyKey: "request-1" });
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const again = await outbox.enqueue({ payload: { id: 1 }, idempotencyKey: "request-1" }, { client });
      await client.query("COMMIT");
      expect(again).toEqual({ ...first, duplicate: true, deliveries: 0 });
    } finally {
      client.release();
    }
  });

  it("leaves no exclusion nor count of a batch it refuses in the caller's transaction, which commits anyway", async () => {
    const filtered = await outbox.addEndpoint({
      url: `${receiver.url}/filtered`,
      token: "tok",
      secrets: [generateWebhookSecret()],
      filter: "payload.n == 0",
    });
    const first = await outbox.enqueue({ payload: { n: 1 }, idempotencyKey: "taken" });
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      // Its first message is inserted, and excluded, before the second is found to conflict.
      await expect(
        outbox.enqueueMany([{ payload: { n: 2 } }, { payload: { n: 3 }, idempotencyKey: "taken" }], {
          client,
        }),
      ).rejects.toMatchObject({ code: "ERR_IDEMPOTENCY_CONFLICT" });
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    expect((await outbox.getEndpoint(filtered.id))?.filteredCount).toBe(1);
    expect((await outbox.listExcluded(filtered.id))?.messages.map((message) => message.webhookId)).toEqual([
      first.webhookId,
    ]);
  });
});

describe("withTransaction", () => {
  it("survives the server ending the connection between two statements, and the pool goes on", async () => {
    const url = await postgres.createDatabase();
    const pool = new pg.Pool({ connectionString: url });
    const lost: Error[] = [];
    pool.on("error", (error) => lost.push(error));
    try {
      await expect(
        withTransaction(pool, async (client) => {
          await client.query("SELECT 1");
          // Ended while no statement of ours runs: pg-pool does not listen to a checked-out client, so
          // without withTransaction's listener this 'error' would be an uncaught exception.
          expect(await endConnections(url)).toBeGreaterThan(0);
          await pause(300);
          await client.query("SELECT 2");
        }),
      ).rejects.toThrow();
      expect((await pool.query<{ one: number }>("SELECT 1 AS one")).rows[0]?.one).toBe(1);
      expect(pool.totalCount).toBe(1);
    } finally {
      await pool.end();
    }
  });
});

describe("withClient", () => {
  it("rolls back what a failing work left open before the client goes back to the pool", async () => {
    const pool = new pg.Pool({ connectionString: await postgres.createDatabase(), max: 1 });
    try {
      await expect(
        withClient(pool, async (client) => {
          await client.query("BEGIN");
          await client.query("CREATE TABLE left_open (x int)");
          throw new Error("the work failed");
        }),
      ).rejects.toThrow("the work failed");
      // The pool's one connection, handed back: outside any transaction, the table never created.
      const found = await pool.query<{ table: string | null }>(
        "SELECT to_regclass('left_open')::text AS table",
      );
      expect(found.rows[0]?.table).toBeNull();
      expect(
        await withClient(pool, async (client) => (await client.query("SELECT 2 AS two")).rows[0]?.two),
      ).toBe(2);
    } finally {
      await pool.end();
    }
  });
});
