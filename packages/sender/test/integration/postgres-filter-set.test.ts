import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresOutbox, type PostgresOutbox } from "../../src/postgres.js";

/**
 * Each PostgreSQL outbox keeps a copy of the stored filter set and sends its verdicts with the enqueue's
 * insert, which writes only while the set is still the one they were computed from. Two outboxes on one
 * database stand for two processes: what one changes, the other's very next enqueue honours, found
 * stale by the insert statement itself (nothing here waits).
 */
let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
});

const secret = generateWebhookSecret();
const tropical = 'payload.tag == "tropical"';

/** An outbox on its own pool, counting the statements its connections are sent. */
async function process(url: string): Promise<{ outbox: PostgresOutbox; pool: pg.Pool; sent: () => number }> {
  const pool = new pg.Pool({ connectionString: url });
  let sent = 0;
  pool.on("connect", (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      sent += 1;
      return query(...args);
    };
  });
  return { outbox: await createPostgresOutbox(pool), pool, sent: () => sent };
}

describe("a PostgreSQL outbox's copy of the filter set", () => {
  it("honours at its very next enqueue a filter another process set or removed, an endpoint it disabled, removed or added", async () => {
    const url = await postgres.createDatabase();
    const admin = await process(url);
    const sender = await process(url);
    const { outbox: a } = admin;
    const { outbox: b } = sender;
    try {
      const endpoint = await a.addEndpoint({ url: "http://127.0.0.1:9/e", token: "t", secrets: [secret] });
      let enqueued = 0;
      const send = async (tag: string) => {
        enqueued += 1;
        return (await b.enqueue({ eventType: "plant", payload: { tag, n: enqueued } })).deliveries;
      };
      // B knows the set (empty) before A changes it.
      expect(await send("indoor")).toBe(1);
      await a.updateEndpoint(endpoint.id, { filter: tropical });
      expect(await send("indoor")).toBe(0);
      expect(await send("tropical")).toBe(1);
      expect((await a.getEndpoint(endpoint.id))?.filteredCount).toBe(1);

      await a.updateEndpoint(endpoint.id, { filter: 'payload.tag == "desert"' });
      expect(await send("tropical")).toBe(0);
      await a.updateEndpoint(endpoint.id, { filter: null });
      expect(await send("indoor")).toBe(1);
      expect((await a.getEndpoint(endpoint.id))?.filteredCount).toBe(2);

      // Disabled, it receives nothing, and no exclusion is counted for a message it would not have had.
      await a.updateEndpoint(endpoint.id, { filter: tropical });
      expect(await send("indoor")).toBe(0);
      await a.setEndpointStatus(endpoint.id, "disabled");
      expect(await send("indoor")).toBe(0);
      expect(await send("tropical")).toBe(0);
      expect((await a.getEndpoint(endpoint.id))?.filteredCount).toBe(3);

      // Removed, and another added with a filter: B's copy still holds the first.
      await a.removeEndpoint(endpoint.id);
      const added = await a.addEndpoint({
        url: "http://127.0.0.1:9/f",
        token: "t",
        secrets: [secret],
        filter: 'payload.tag == "indoor"',
      });
      expect(await send("tropical")).toBe(0);
      expect(await send("indoor")).toBe(1);
      expect((await a.getEndpoint(added.id))?.filteredCount).toBe(1);
      expect((await a.listExcluded(added.id))?.messages).toHaveLength(1);

      // Every enqueue queued its message once, however many times its insert found the set stale.
      const { rows } = await admin.pool.query<{ n: string; distinct: string }>(
        "SELECT count(*) AS n, count(DISTINCT payload) AS distinct FROM webhook_messages",
      );
      expect(rows[0]).toEqual({ n: String(enqueued), distinct: String(enqueued) });
    } finally {
      await a.close();
      await b.close();
      await admin.pool.end();
      await sender.pool.end();
    }
  });

  it("queues a filtered message in one statement once it knows the set, and reads the set again when another process changed it", async () => {
    const url = await postgres.createDatabase();
    const admin = await process(url);
    const sender = await process(url);
    try {
      const filtered = [];
      for (let n = 0; n < 3; n++)
        filtered.push(
          await admin.outbox.addEndpoint({
            url: `http://127.0.0.1:9/${n}`,
            token: "t",
            secrets: [secret],
            filter: n === 0 ? tropical : "true",
          }),
        );
      const send = async (tag: string) => {
        const before = sender.sent();
        const { deliveries } = await sender.outbox.enqueue({ eventType: "plant", payload: { tag } });
        return { deliveries, statements: sender.sent() - before };
      };
      await send("tropical");
      expect(await send("indoor")).toEqual({ deliveries: 2, statements: 1 });
      await admin.outbox.updateEndpoint(filtered[1]?.id ?? 0, { filter: tropical });
      // The stale insert, the set read again, the insert.
      expect(await send("indoor")).toEqual({ deliveries: 1, statements: 3 });
      expect(await send("tropical")).toEqual({ deliveries: 3, statements: 1 });
    } finally {
      await admin.outbox.close();
      await sender.outbox.close();
      await admin.pool.end();
      await sender.pool.end();
    }
  });
  it("queues a batch in one statement while no endpoint has a filter, and excludes and counts as before once another process set one", async () => {
    const url = await postgres.createDatabase();
    const admin = await process(url);
    const sender = await process(url);
    try {
      const endpoint = await admin.outbox.addEndpoint({
        url: "http://127.0.0.1:9/e",
        token: "t",
        secrets: [secret],
      });
      const sendMany = async (...tags: string[]) => {
        const before = sender.sent();
        const queued = await sender.outbox.enqueueMany(
          tags.map((tag) => ({ eventType: "plant", payload: { tag } })),
        );
        return { deliveries: queued.map((result) => result.deliveries), statements: sender.sent() - before };
      };
      await sendMany("indoor");
      // BEGIN, the insert checked against the set, COMMIT.
      expect(await sendMany("indoor", "tropical")).toEqual({ deliveries: [1, 1], statements: 3 });
      await admin.outbox.updateEndpoint(endpoint.id, { filter: tropical });
      // The stale insert, the set read again, then a batch's path with filters: its candidates, the
      // insert, the exclusions counted (and BEGIN, COMMIT).
      expect(await sendMany("indoor", "tropical", "indoor")).toEqual({
        deliveries: [0, 1, 0],
        statements: 7,
      });
      expect((await admin.outbox.getEndpoint(endpoint.id))?.filteredCount).toBe(2);
      expect(await sendMany("tropical", "indoor")).toEqual({ deliveries: [1, 0], statements: 5 });
      expect((await admin.outbox.getEndpoint(endpoint.id))?.filteredCount).toBe(3);
    } finally {
      await admin.outbox.close();
      await sender.outbox.close();
      await admin.pool.end();
      await sender.pool.end();
    }
  });
});
