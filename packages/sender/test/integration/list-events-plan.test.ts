import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Outbox } from "../../src/index.js";
import { createPostgresOutbox } from "../../src/postgres.js";

/**
 * What a page of `listEvents` reads on PostgreSQL once its tables have statistics (as a store's always
 * do, autovacuum analyses them): the messages from the cursor on, or from the endpoint's first delivery
 * on, not every message before it as well. Counted from the plan of the very statement the listing runs
 * (EXPLAIN ANALYZE with its values).
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

const secrets = [generateWebhookSecret()];
const enqueue = async (outbox: Outbox, count: number) => {
  for (let from = 0; from < count; from += 500)
    await outbox.enqueueMany(
      Array.from({ length: Math.min(500, count - from) }, (_, n) => ({ payload: { n: from + n } })),
    );
};

/**
 * An outbox on a new database, and `messagesRead(list)`: how many rows of webhook_messages the statement
 * `list` sent to read its page reads, run again under EXPLAIN ANALYZE after ANALYZE.
 */
async function open() {
  const url = await postgres.createDatabase();
  const pool = new pg.Pool({ connectionString: url });
  const sent: Array<{ text: string; values?: unknown[] }> = [];
  const query = pool.query.bind(pool) as (config: unknown) => Promise<unknown>;
  (pool as { query: unknown }).query = (config: unknown) => {
    if (typeof config === "object" && config !== null && "text" in config)
      sent.push(config as { text: string; values?: unknown[] });
    return query(config);
  };
  const outbox = await createPostgresOutbox(pool);
  return {
    outbox,
    async messagesRead(list: () => Promise<unknown>): Promise<number> {
      sent.length = 0;
      await list();
      const statement = sent.find((one) => one.text.includes("webhook_messages"));
      const { rows } = (await pool.query({
        text: `EXPLAIN (ANALYZE, FORMAT JSON) ${statement?.text}`,
        values: statement?.values ?? [],
      })) as { rows: Array<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }> };
      return rowsReadFrom(rows[0]?.["QUERY PLAN"][0]?.Plan as PlanNode, "webhook_messages");
    },
    analyze: () => pool.query("ANALYZE"),
    async close() {
      await outbox.close();
      await pool.end();
    },
  };
}

it("reads a page's messages from the cursor on, however deep the cursor", async () => {
  const store = await open();
  try {
    const { id } = await store.outbox.addEndpoint({ url: "https://a.example/hook", token: "t", secrets });
    await store.outbox.addEndpoint({ url: "https://b.example/hook", token: "t", secrets });
    await enqueue(store.outbox, 3000);
    await store.analyze();
    let after = (await store.outbox.listEvents(id, { limit: 50 }))?.next ?? "";
    for (let page = 0; page < 40; page++)
      after = (await store.outbox.listEvents(id, { limit: 50, after }))?.next ?? "";

    // A page and the cursor's own event, and what a merge looks at past its end: not the 2,050
    // messages before the cursor.
    expect(
      await store.messagesRead(() => store.outbox.listEvents(id, { limit: 50, after })),
    ).toBeLessThanOrEqual(2 * 50);
  } finally {
    await store.close();
  }
}, 60_000);

it("reads a first page's messages from the endpoint's first delivery on, however many came before it", async () => {
  const store = await open();
  try {
    await store.outbox.addEndpoint({ url: "https://a.example/hook", token: "t", secrets });
    await enqueue(store.outbox, 3000);
    const { id } = await store.outbox.addEndpoint({ url: "https://b.example/hook", token: "t", secrets });
    await enqueue(store.outbox, 100);
    await store.analyze();

    // Not the 3,000 messages queued before the endpoint was added.
    expect(await store.messagesRead(() => store.outbox.listEvents(id, { limit: 50 }))).toBeLessThanOrEqual(
      2 * 50,
    );
  } finally {
    await store.close();
  }
}, 60_000);
