import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRetryPolicy } from "../../src/index.js";
import { createPostgresOutbox } from "../../src/postgres.js";
import { enqueuePlant } from "../fixtures/enqueue-plant.js";

let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
});

// The outbox keeps its statements prepared on each connection. A column added by another process (a
// newer version's migration) must not break a running outbox's prepared statements: PostgreSQL fails a
// prepared statement whose result gains a column ("cached plan must not change result type").
describe("a PostgreSQL outbox's prepared statements", () => {
  it("keeps claiming, enqueueing and reading on one connection after another process adds columns", async () => {
    const url = await postgres.createDatabase();
    // One connection: every statement is prepared on it, and stays so.
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const outbox = await createPostgresOutbox(pool);
    const endpoint = await outbox.addEndpoint({
      url: "https://example.com/plant/webhook",
      token: "tok",
      secrets: [generateWebhookSecret()],
    });
    const claim = { workerId: "w1", limit: 10, leaseMs: 60_000 };
    await enqueuePlant(outbox, { name: "Before" });
    // More than five times: PostgreSQL may have settled on a generic plan by then.
    for (let i = 0; i < 6; i++) {
      await outbox.claimDue(claim);
      await outbox.listEndpoints();
    }
    const [prepared] = (await pool.query("SELECT count(*)::int AS n FROM pg_prepared_statements")).rows;
    expect(prepared.n).toBeGreaterThan(0);

    const other = new pg.Client({ connectionString: url });
    await other.connect();
    for (const table of ["webhook_deliveries", "webhook_messages", "webhook_endpoints", "webhook_attempts"])
      await other.query(`ALTER TABLE ${table} ADD COLUMN added_later TEXT`);
    await other.end();

    await enqueuePlant(outbox, { name: "After" });
    const claimed = await outbox.claimDue(claim);
    expect(claimed.map((delivery) => JSON.parse(delivery.body).name)).toEqual(["After"]);
    const [listed] = await outbox.listEndpoints();
    expect(listed?.id).toBe(endpoint.id);
    const [delivery] = claimed;
    if (!delivery) throw new Error("nothing was claimed");
    const recorded = await outbox.recordAttempts(
      [
        {
          deliveryId: delivery.id,
          workerId: "w1",
          ...(delivery.leaseUntil ? { leaseUntil: delivery.leaseUntil } : {}),
          result: { startedAt: new Date(), durationMs: 3, status: 200, error: null, responseBody: "ok" },
        },
      ],
      { policy: createRetryPolicy() },
    );
    expect(recorded.recorded[0]).toMatchObject({ held: true, outcome: "delivered" });
    await outbox.close();
    await pool.end();
  });
});
