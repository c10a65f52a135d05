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

  it("plans the worker's record-and-claim statement once per connection, and keeps it working after columns are added", async () => {
    const url = await postgres.createDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const outbox = await createPostgresOutbox(pool);
    await outbox.addEndpoint({
      url: "https://example.com/plant/webhook",
      token: "tok",
      secrets: [generateWebhookSecret()],
    });
    const names = ["First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth"];
    for (const name of names) await enqueuePlant(outbox, { name });
    const claim = { workerId: "w1", limit: 1, leaseMs: 60_000 };
    let [current] = await outbox.claimDue(claim);
    const sent: string[] = [];
    /** Records the delivery in hand as delivered, claiming the next one in the same statement. */
    const recordAndClaimNext = async () => {
      if (!current) throw new Error("nothing claimed");
      sent.push(JSON.parse(current.body).name);
      const { recorded, claimed } = await outbox.recordAttempts(
        [
          {
            deliveryId: current.id,
            workerId: "w1",
            ...(current.leaseUntil ? { leaseUntil: current.leaseUntil } : {}),
            result: { startedAt: new Date(), durationMs: 3, status: 200, error: null, responseBody: "" },
          },
        ],
        { policy: createRetryPolicy(), claim },
      );
      expect(recorded[0]).toMatchObject({ held: true, outcome: "delivered" });
      [current] = claimed;
    };
    // Seven times: left to choose, PostgreSQL plans a prepared statement for its values five times
    // before it may keep a generic plan, and kept re-planning this one at every call.
    for (let i = 0; i < 7; i++) await recordAndClaimNext();
    const plans = await pool.query<{ generic_plans: number; custom_plans: number }>(
      "SELECT generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE statement LIKE 'WITH RECURSIVE pending (id) AS%' AND statement LIKE '%w0 AS%'",
    );
    expect(plans.rows).toEqual([{ generic_plans: 7, custom_plans: 0 }]);

    const other = new pg.Client({ connectionString: url });
    await other.connect();
    for (const table of ["webhook_deliveries", "webhook_messages", "webhook_endpoints", "webhook_attempts"])
      await other.query(`ALTER TABLE ${table} ADD COLUMN added_later TEXT`);
    await other.end();
    await recordAndClaimNext();
    await recordAndClaimNext();
    expect(sent).toEqual(names);
    expect(current).toBeUndefined();
    // Only the record's transaction: a setting of the connection's own would reach the caller's pool.
    const [setting] = (await pool.query("SELECT current_setting('plan_cache_mode') AS mode")).rows;
    expect(setting.mode).toBe("auto");
    await outbox.close();
    await pool.end();
  });
});
