import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPostgresOutbox } from "../../src/postgres.js";

/**
 * What a page of `listEvents` reads on PostgreSQL once its tables have statistics (as a store's always
 * do, autovacuum analyses them): the messages from the cursor on, not every message before it as well.
 * Counted from the plan of the very statement the listing runs (EXPLAIN ANALYZE with its values).
 */
let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
});

interface PlanNode {
  "Relation Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  Plans?: PlanNode[];
}

const rowsReadFrom = (node: PlanNode, table: string): number =>
  (node["Relation Name"] === table ? node["Actual Rows"] * node["Actual Loops"] : 0) +
  (node.Plans ?? []).reduce((sum, child) => sum + rowsReadFrom(child, table), 0);

it("reads a page's messages from the cursor on, however deep the cursor, once the tables have statistics", async () => {
  const url = await postgres.createDatabase();
  const pool = new pg.Pool({ connectionString: url });
  // The statements the outbox sends, kept to be explained.
  const sent: Array<{ text: string; values?: unknown[] }> = [];
  const query = pool.query.bind(pool) as (config: unknown) => Promise<unknown>;
  (pool as { query: unknown }).query = (config: unknown) => {
    if (typeof config === "object" && config !== null && "text" in config)
      sent.push(config as { text: string; values?: unknown[] });
    return query(config);
  };
  const outbox = await createPostgresOutbox(pool);
  try {
    const secrets = [generateWebhookSecret()];
    const { id } = await outbox.addEndpoint({ url: "https://a.example/hook", token: "t", secrets });
    await outbox.addEndpoint({ url: "https://b.example/hook", token: "t", secrets });
    for (let from = 0; from < 3000; from += 500)
      await outbox.enqueueMany(Array.from({ length: 500 }, (_, n) => ({ payload: { n: from + n } })));
    await pool.query("ANALYZE");
    const first = await outbox.listEvents(id, { limit: 50 });
    let after = first?.next ?? "";
    for (let page = 0; page < 40; page++)
      after = (await outbox.listEvents(id, { limit: 50, after }))?.next ?? "";

    sent.length = 0;
    const deep = await outbox.listEvents(id, { limit: 50, after });
    expect(deep?.events).toHaveLength(50);
    const statement = sent.find((one) => one.text.includes("webhook_messages"));
    const client = await pool.connect();
    try {
      const [explained] = (
        await client.query({
          text: `EXPLAIN (ANALYZE, FORMAT JSON) ${statement?.text}`,
          values: statement?.values ?? [],
        })
      ).rows as Array<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>;
      const plan = explained?.["QUERY PLAN"][0]?.Plan as PlanNode;
      // A page and the cursor's own event, and what a merge looks at past its end: not the 2,050
      // messages before the cursor.
      expect(rowsReadFrom(plan, "webhook_messages")).toBeLessThanOrEqual(2 * 50);
    } finally {
      client.release();
    }
  } finally {
    await outbox.close();
    await pool.end();
  }
}, 60_000);
