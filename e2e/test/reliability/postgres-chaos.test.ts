import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readAppEvent } from "@plant-store/app-shell";
import { type RunningApp, startPostgres, type TestPostgres, waitFor } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addEndpoint,
  addPlants,
  adminToken,
  countDeliveries,
  startFlakyReceiver,
  startStore,
  waitForAllDelivered,
} from "./fixtures/pipe.js";

// A store killed while one of its transactions is open on PostgreSQL, made deterministic from outside:
// the test holds a lock the transaction needs before it can finish, waits until pg_stat_activity shows
// the store's backend waiting on it with a transaction that has already written (backend_xid set),
// SIGKILLs the store, then lets go. The orphaned backend then finds its client gone and rolls back.
describe("SIGKILL of a plant-store serve on PostgreSQL in the middle of a transaction", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-pg-chaos-"));
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

  /** The pid of a backend of `db` waiting on a lock inside a transaction that has written, running `like`. */
  async function blockedWriter(client: pg.Client, like: string): Promise<number> {
    return waitFor(
      async () => {
        const { rows } = await client.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
             AND backend_xid IS NOT NULL AND query LIKE $1`,
          [like],
        );
        return rows[0]?.pid;
      },
      30_000,
      5,
    );
  }

  async function gone(client: pg.Client, pid: number): Promise<void> {
    await waitFor(
      async () =>
        (await client.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid])).rowCount === 0
          ? true
          : undefined,
      30_000,
      20,
    );
  }

  async function setUp(name: string, delayMs = 0) {
    const db = await postgres.createDatabase();
    const secret = generateWebhookSecret();
    const token = `${name}-token`;
    const receiver = await startFlakyReceiver({ db: join(dir, `${name}.db`), token, secret, delayMs });
    apps.push(receiver);
    await addEndpoint(db, receiver.url, token, secret);
    const observer = new pg.Client({ connectionString: db });
    const blocker = new pg.Client({ connectionString: db });
    await Promise.all([observer.connect(), blocker.connect()]);
    return { db, receiver, observer, blocker };
  }

  it("mid batch claim: the attempts it was recording and the work it was claiming go to the next process; none lost, none handled twice", async () => {
    const plants = 40;
    // Each answer takes 200 ms, so the queue is still draining when the lock is taken.
    const { db, receiver, observer, blocker } = await setUp("claim", 200);
    const args = ["--db", db, "--lease", "2500ms", "--timeout", "1s", "--concurrency", "4"];
    try {
      const victim = await startStore(args);
      apps.push(victim);
      const ids = await addPlants(victim.url, plants, "Claimed plant");
      const attempt = await waitFor(() => {
        for (const line of victim.lines) {
          const event = readAppEvent(line);
          if (event?.event === "delivery.attempted") return event;
        }
        return undefined;
      }, 30_000);
      const victimId = String(attempt.workerId);
      // A pause at the end of every statement that records attempts (a trigger of this test's own, in its
      // own database), held by an advisory lock this test takes: the statement that records a batch
      // and claims its replacements has written everything (attempts, deliveries moved on, new leases)
      // and waits there, uncommitted. Its text starts with the claim's parts (their first, `pending`, the
      // endpoints with pending work); a record alone starts otherwise.
      await blocker.query("SELECT pg_advisory_lock(4242)");
      await observer.query(`CREATE FUNCTION chaos_pause() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN PERFORM pg_advisory_xact_lock_shared(4242); RETURN NULL; END $$`);
      await observer.query(
        "CREATE TRIGGER chaos_pause AFTER INSERT ON webhook_attempts FOR EACH STATEMENT EXECUTE FUNCTION chaos_pause()",
      );
      const pid = await blockedWriter(observer, "WITH RECURSIVE pending (id) AS (%");
      victim.child.kill("SIGKILL");
      await new Promise((resolve) => victim.child.once("exit", resolve));
      const orphaned = (
        await observer.query<{ id: string }>(
          "SELECT id FROM webhook_deliveries WHERE status = 'pending' AND lease_owner = $1",
          [victimId],
        )
      ).rows.map((row) => Number(row.id));
      await blocker.query("SELECT pg_advisory_unlock(4242)");
      await gone(observer, pid);
      await observer.query("DROP TRIGGER chaos_pause ON webhook_attempts");
      expect(orphaned.length).toBeGreaterThan(0);

      const survivor = await startStore(args);
      apps.push(survivor);
      const stats = await waitForAllDelivered(db, receiver, plants, 90_000);
      expect(stats.distinctIds).toBe(ids.length);
      expect(stats.handlerCalls).toBe(ids.length);
      expect(stats.duplicates).toEqual([]);
      // The batch being recorded had been answered: its deliveries were sent again, and the receiver
      // recognised them instead of handling them twice.
      expect(stats.requests).toBeGreaterThan(plants);
      expect(await countDeliveries(db, "failed")).toBe(0);
      const recorded = await observer.query<{ id: string; worker_id: string }>(
        "SELECT delivery_id AS id, worker_id FROM webhook_attempts WHERE delivery_id = ANY($1)",
        [orphaned],
      );
      // Nothing of the killed transaction stayed: every orphan was recorded by the survivor alone.
      expect(recorded.rows.every((row) => row.worker_id !== victimId)).toBe(true);
      expect(new Set(recorded.rows.map((row) => Number(row.id)))).toEqual(new Set(orphaned));
      expect(await survivor.stop()).toBe(0);
    } finally {
      await observer.end();
      await blocker.end();
    }
  });

  it("mid group transaction of POST /plants: nothing of the group stays, its requests retried with their keys are added and delivered once", async () => {
    const { db, receiver, observer, blocker } = await setUp("group");
    const args = ["--db", db, "--lease", "2500ms", "--timeout", "1s"];
    const post = (url: string, index: number) =>
      fetch(`${url}/plants`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${adminToken}`,
          "content-type": "application/json",
          "idempotency-key": `during-${index}`,
        },
        body: JSON.stringify({ name: `Grouped plant ${index}` }),
      });
    try {
      const victim = await startStore(args);
      apps.push(victim);
      const before = await addPlants(victim.url, 10, "Acknowledged plant");
      // A pause at the end of the group's messages insert (a trigger of this test's own, in its own
      // database), held by an advisory lock this test takes: the group has begun, drawn its plants' ids
      // and written its messages and deliveries, uncommitted. Its plants' insert and the COMMIT pipelined
      // behind it are not sent yet (they follow that insert's answer): once sent, a COMMIT already in the
      // server's hands would still commit the whole group, plants and messages alike, after a SIGKILL.
      await blocker.query("SELECT pg_advisory_lock(4243)");
      await observer.query(`CREATE FUNCTION chaos_pause_group() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN PERFORM pg_advisory_xact_lock_shared(4243); RETURN NULL; END $$`);
      await observer.query(
        "CREATE TRIGGER chaos_pause_group AFTER INSERT ON webhook_messages FOR EACH STATEMENT EXECUTE FUNCTION chaos_pause_group()",
      );
      const during = Array.from({ length: 20 }, (_, index) =>
        post(victim.url, index).then(
          (r) => r.status,
          () => "no answer",
        ),
      );
      const pid = await blockedWriter(observer, "%INSERT INTO webhook_messages%");
      victim.child.kill("SIGKILL");
      await new Promise((resolve) => victim.child.once("exit", resolve));
      // Nobody heard 201 for a plant of the killed group.
      expect(await Promise.all(during)).toEqual(Array(20).fill("no answer"));
      await blocker.query("SELECT pg_advisory_unlock(4243)");
      await gone(observer, pid);
      await observer.query("DROP TRIGGER chaos_pause_group ON webhook_messages");
      const counts = await observer.query<{ plants: number; messages: number; deliveries: number }>(
        `SELECT (SELECT count(*) FROM store_plants)::int AS plants, (SELECT count(*) FROM webhook_messages)::int AS messages,
           (SELECT count(*) FROM webhook_deliveries)::int AS deliveries`,
      );
      expect(counts.rows[0]).toEqual({ plants: 10, messages: 10, deliveries: 10 });

      const survivor = await startStore(args);
      apps.push(survivor);
      const retried = await Promise.all(Array.from({ length: 20 }, (_, index) => post(survivor.url, index)));
      expect(retried.map((response) => response.status)).toEqual(Array(20).fill(201));
      expect(retried.map((response) => response.headers.get("idempotent-replayed"))).toEqual(
        Array(20).fill(null),
      );
      const stats = await waitForAllDelivered(db, receiver, 30, 90_000);
      expect(stats.distinctIds).toBe(before.length + 20);
      expect(stats.handlerCalls).toBe(before.length + 20);
      expect(stats.duplicates).toEqual([]);
      expect(await survivor.stop()).toBe(0);
    } finally {
      await observer.end();
      await blocker.end();
    }
  });
});
