import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Outbox } from "../../src/index.js";
import { createPostgresOutbox } from "../../src/postgres.js";
import { createSqliteOutbox } from "../../src/sqlite.js";

/**
 * What a claim costs the store: endpoints with nothing due (idle, or a subscriber's not yet verified)
 * are never written, rate-limited or not; a rate-limited endpoint's row is written only when a claim
 * takes work for it. Counted by a trigger on the endpoints table, on both databases.
 */
interface Store {
  outbox: Outbox;
  /** The ids of the endpoint rows updated since the last call. */
  writes(): Promise<number[]>;
  close(): Promise<void>;
}

const secret = generateWebhookSecret();

function describeClaimCost(name: string, open: () => Promise<Store>) {
  describe(`${name}: a claim's cost`, () => {
    it("writes no row of an endpoint with nothing due, and a rate-limited one's only when it takes work for it", async () => {
      const store = await open();
      const { outbox } = store;
      try {
        const url = "http://127.0.0.1:9/hook";
        // 40 idle rate-limited endpoints of the operator (subscribed to a type never sent) and 40 of a
        // subscriber, not verified; one endpoint without a limit and one limited to 1/s, both due.
        for (let n = 0; n < 40; n++)
          await outbox.addEndpoint({
            url,
            token: "t",
            secrets: [secret],
            rateLimit: 5,
            eventTypes: ["idle.never"],
          });
        const { subscriber } = await outbox.addSubscriber({ name: "Idle" });
        for (let n = 0; n < 40; n++)
          await outbox.addEndpoint({
            url,
            token: "t",
            secrets: [secret],
            rateLimit: 5,
            subscriberId: subscriber.id,
          });
        const free = await outbox.addEndpoint({ url, token: "t", secrets: [secret] });
        const limited = await outbox.addEndpoint({ url, token: "t", secrets: [secret], rateLimit: 1 });
        await store.writes();
        for (let n = 0; n < 3; n++) await outbox.enqueue({ payload: { n } });
        const claim = async () =>
          (await outbox.claimDue({ workerId: "w", limit: 100, leaseMs: 60_000 })).map((d) => d.endpointId);

        // The first claim takes 3 for the free endpoint and 1 for the limited one: only its row is written.
        expect((await claim()).sort()).toEqual([free.id, free.id, free.id, limited.id].sort());
        expect(await store.writes()).toEqual([limited.id]);
        // Its schedule is full for the next second: a claim takes nothing and writes nothing.
        for (let n = 0; n < 5; n++) expect(await claim()).toEqual([]);
        expect(await store.writes()).toEqual([]);
      } finally {
        await store.close();
      }
    });
  });
}

describeClaimCost("SQLite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sender-claim-cost-"));
  const outbox = createSqliteOutbox(join(dir, "outbox.db"));
  outbox.db.exec(`CREATE TABLE endpoint_writes (id INTEGER);
    CREATE TRIGGER endpoint_writes AFTER UPDATE ON webhook_endpoints BEGIN INSERT INTO endpoint_writes VALUES (NEW.id); END;`);
  return {
    outbox,
    async writes() {
      const ids = outbox.db
        .prepare("SELECT id FROM endpoint_writes ORDER BY rowid")
        .pluck()
        .all() as number[];
      outbox.db.exec("DELETE FROM endpoint_writes");
      return ids.map(Number);
    },
    async close() {
      await outbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterAll(async () => {
  await postgres?.stop();
});

describeClaimCost("PostgreSQL", async () => {
  const url = await postgres.createDatabase();
  const outbox = await createPostgresOutbox(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`CREATE TABLE endpoint_writes (id bigint);
    CREATE FUNCTION count_endpoint_write() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN INSERT INTO endpoint_writes VALUES (NEW.id); RETURN NEW; END $$;
    CREATE TRIGGER endpoint_writes AFTER UPDATE ON webhook_endpoints FOR EACH ROW EXECUTE FUNCTION count_endpoint_write();`);
  return {
    outbox,
    async writes() {
      const { rows } = await client.query<{ id: string }>("DELETE FROM endpoint_writes RETURNING id");
      return rows.map((row) => Number(row.id));
    },
    async close() {
      await client.end();
      await outbox.close();
    },
  };
});
