import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  endConnections,
  startPostgres,
  startTestReceiver,
  type TestPostgres,
  waitFor,
} from "@plant-store/testing";
import { generateWebhookSecret, parseTraceparent } from "@plant-store/types";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createRetryPolicy, createSsrfGuard, createWorker, type Outbox } from "../../src/index.js";
import { createPostgresOutbox } from "../../src/postgres.js";
import { SCHEMA_VERSION } from "../../src/queue/operations/migrate-schema.js";
import { createSqliteOutbox } from "../../src/sqlite.js";
import { describeAlerts } from "../fixtures/alerts-suite.js";
import { describeAttemptTimeline } from "../fixtures/attempt-timeline-suite.js";
import { describeDeliveryControl } from "../fixtures/delivery-control-suite.js";
import { describeEndpointOptions } from "../fixtures/endpoint-options-suite.js";
import { enqueuePlant } from "../fixtures/enqueue-plant.js";
import { expectMigratedOutbox } from "../fixtures/expect-migrated-outbox.js";
import { LEGACY_POSTGRES_SCHEMA, legacyRows } from "../fixtures/legacy-outbox.js";
import { describeOutbox, type OutboxFactory } from "../fixtures/outbox-suite.js";
import { POSTGRES_SCHEMA_V2 } from "../fixtures/schema-v2.js";
import { describeSubscribers } from "../fixtures/subscriber-suite.js";

let postgres: TestPostgres;
const secret = generateWebhookSecret();

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
});

const postgresFactory: OutboxFactory = {
  async open(options = {}) {
    const url = await postgres.createDatabase();
    return {
      outbox: await createPostgresOutbox(url, options),
      second: () => createPostgresOutbox(url, options),
      cleanup: async () => undefined,
    };
  },
};
describeOutbox("PostgreSQL", postgresFactory);
describeSubscribers("PostgreSQL", postgresFactory);
describeDeliveryControl("PostgreSQL", postgresFactory);
describeAttemptTimeline("PostgreSQL", postgresFactory);
describeAlerts("PostgreSQL", postgresFactory);
describeEndpointOptions("PostgreSQL", postgresFactory);

describe("PostgreSQL outbox made at schema version 2 (event types)", () => {
  it("gains subscribers on open: every endpoint and message is the operator's and everyone's, and keeps working", async () => {
    const url = await postgres.createDatabase();
    const pool = new pg.Pool({ connectionString: url });
    try {
      await pool.query(POSTGRES_SCHEMA_V2);
      await pool.query(
        `INSERT INTO webhook_endpoints (url, token, secrets, event_types, created_at)
           VALUES ('http://127.0.0.1:9/hook', 't', $1, NULL, 0)`,
        [JSON.stringify([secret])],
      );
      await pool.query(`INSERT INTO webhook_messages (webhook_id, event_type, payload, created_at) VALUES ('msg_v2', 'orderCreated', '{}', 0);
        INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, event_type, status, next_attempt_at, created_at, updated_at)
          VALUES (1, 1, 'msg_v2', 'orderCreated', 'pending', 0, 0, 0)`);
      const outbox = await createPostgresOutbox(url);
      try {
        const version = await pool.query("SELECT version FROM webhook_schema");
        expect(version.rows).toEqual([{ version: SCHEMA_VERSION }]);
        expect(await outbox.getEndpoint(1)).toMatchObject({
          subscriberId: null,
          verified: true,
          verifiedAt: null,
        });
        expect(await outbox.getMessage(1)).toMatchObject({ webhookId: "msg_v2", subscriberId: null });
        const [old] = await outbox.claimDue({ workerId: "me", limit: 10, leaseMs: 60_000 });
        expect(old?.webhookId).toBe("msg_v2");
        const acme = (await outbox.addSubscriber({ name: "Acme" })).subscriber;
        const own = await outbox.addEndpoint({
          url: "http://127.0.0.1:9/acme",
          token: "t",
          secrets: [secret],
          subscriberId: acme.id,
        });
        expect((await outbox.enqueue({ payload: { n: 1 } })).deliveries).toBe(1);
        await outbox.markEndpointVerified(own.id);
        expect((await outbox.enqueue({ payload: { n: 2 } })).deliveries).toBe(2);
        expect((await outbox.enqueue({ payload: { n: 3 }, subscriberId: acme.id })).deliveries).toBe(1);
      } finally {
        await outbox.close();
      }
    } finally {
      await pool.end();
    }
  });
});

describe("the SQLite and PostgreSQL outboxes", () => {
  it("answer the same methods; SQLite adds only its handle and the synchronous enqueue its transactions need", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sender-both-"));
    const sqlite = createSqliteOutbox(join(dir, "store.db"));
    const postgresOutbox = await createPostgresOutbox(await postgres.createDatabase());
    try {
      const methods = (outbox: object) => Object.keys(outbox).sort();
      expect(methods(sqlite).filter((name) => !["db", "enqueueSync"].includes(name))).toEqual(
        methods(postgresOutbox),
      );
      expect(methods(postgresOutbox)).toContain("enqueueMany");
      expect(methods(postgresOutbox)).toContain("ensureEndpoint");
      expect(methods(sqlite)).toEqual(expect.arrayContaining(["db", "enqueueSync"]));
    } finally {
      await sqlite.close();
      await postgresOutbox.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("several workers sharing one PostgreSQL outbox", () => {
  it("deliver every plant exactly once, never attempting one webhook id twice at the same time", async () => {
    const url = await postgres.createDatabase();
    const outboxes: Outbox[] = await Promise.all([0, 1, 2].map(() => createPostgresOutbox(url)));
    const receiver = await startTestReceiver();
    receiver.respond((_request, response) => {
      // A short pause widens the window in which a second claim of the same delivery would show.
      setTimeout(() => response.writeHead(200).end(), 5);
    });
    const [first] = outboxes;
    if (!first) throw new Error("no outbox");
    await first.addEndpoint({
      url: `${receiver.url}/plant/webhook`,
      token: "t0k3n",
      secrets: [generateWebhookSecret()],
    });
    const workers = outboxes.map((outbox) =>
      createWorker({
        outbox,
        policy: createRetryPolicy({ schedule: "0,20ms", jitter: 0 }),
        ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
        pollIntervalMs: 50,
        concurrency: 4,
      }),
    );
    for (const worker of workers) worker.start();
    try {
      const plants = 60;
      for (let index = 0; index < plants; index++) {
        await enqueuePlant(outboxes[index % 3] as Outbox, { name: `Shared ${index}` });
      }
      await waitFor(async () =>
        (await first.listDeliveries({ status: "delivered", limit: 1000 })).length === plants
          ? true
          : undefined,
      );
      const ids = receiver.requests.map((request) => request.headers["webhook-id"]);
      expect(ids).toHaveLength(plants);
      expect(new Set(ids).size).toBe(plants);
      expect(receiver.maxConcurrencyPerId).toBe(1);
      const workerIds = new Set<string>();
      for (const delivery of await first.listDeliveries({ limit: 1000 })) {
        for (const attempt of await first.listAttempts(delivery.id)) workerIds.add(attempt.workerId);
      }
      // Not a guarantee of fairness, but with NOTIFY every process wakes and competes for work.
      expect(workerIds.size).toBeGreaterThan(1);
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
      await Promise.all(outboxes.map((outbox) => outbox.close()));
      await receiver.close();
    }
  }, 60_000);

  it("wakes another process's outbox through LISTEN/NOTIFY when a plant is added", async () => {
    const url = await postgres.createDatabase();
    const [writer, reader] = await Promise.all([createPostgresOutbox(url), createPostgresOutbox(url)]);
    try {
      // A message no endpoint subscribes to is no work, and wakes nobody.
      await writer.addEndpoint({ url: "http://127.0.0.1:9/plant/webhook", token: "tok", secrets: [secret] });
      let woken = 0;
      reader.onWork(() => {
        woken += 1;
      });
      // LISTEN is set up asynchronously; keep adding (every 50 ms) until a notification arrives.
      await waitFor(
        async () => {
          if (woken > 0) return true;
          await enqueuePlant(writer, { name: "Wake up" });
          return undefined;
        },
        30_000,
        50,
      );
      expect(woken).toBeGreaterThan(0);
    } finally {
      await writer.close();
      await reader.close();
    }
  });

  it("starts several outboxes at once on an empty database and beside one that is delivering", async () => {
    const url = await postgres.createDatabase();
    // Fresh database: all of them race to create the schema.
    const fresh = await Promise.all([0, 1, 2, 3].map(() => createPostgresOutbox(url)));
    const [busy] = fresh;
    if (!busy) throw new Error("no outbox");
    const receiver = await startTestReceiver();
    await busy.addEndpoint({
      url: `${receiver.url}/plant/webhook`,
      token: "t0k3n",
      secrets: [generateWebhookSecret()],
    });
    const worker = createWorker({
      outbox: busy,
      policy: createRetryPolicy({ schedule: "0,20ms", jitter: 0 }),
      ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
      pollIntervalMs: 20,
      concurrency: 8,
    });
    worker.start();
    const opened: Outbox[] = [...fresh];
    try {
      const plants = 40;
      for (let round = 0; round < 5; round++) {
        const adding = (async () => {
          for (let index = 0; index < plants / 5; index++)
            await enqueuePlant(busy, { name: `Round ${round} ${index}` });
        })();
        // Every start-up runs while attempts are being recorded; none may fail.
        opened.push(...(await Promise.all([0, 1, 2].map(() => createPostgresOutbox(url)))));
        await adding;
      }
      await waitFor(async () =>
        (await busy.listDeliveries({ status: "delivered", limit: 1000 })).length === plants
          ? true
          : undefined,
      );
    } finally {
      await worker.stop();
      await Promise.all(opened.map((outbox) => outbox.close()));
      await receiver.close();
    }
  }, 60_000);
});

describe("PostgreSQL outbox times come from the database clock", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  // A process whose clock is off by `skewMs`, as on a machine without NTP.
  const skewed = (skewMs: number) => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date(Date.now() + skewMs));
  };

  it("does not let a process whose clock runs ahead take over a lease that has not run out", async () => {
    const url = await postgres.createDatabase();
    const [here, ahead] = await Promise.all([createPostgresOutbox(url), createPostgresOutbox(url)]);
    try {
      await here.addEndpoint({ url: "https://receiver.example/hook", token: "t", secrets: [secret] });
      await enqueuePlant(here, { name: "Leased here" });
      const [claimed] = await here.claimDue({ workerId: "here", limit: 10, leaseMs: 60_000 });
      expect(claimed).toBeDefined();
      skewed(5 * 60_000);
      expect(await ahead.claimDue({ workerId: "ahead", limit: 10, leaseMs: 60_000 })).toEqual([]);
    } finally {
      vi.useRealTimers();
      await here.close();
      await ahead.close();
    }
  });

  it("lets another worker take over a lease once the database clock has passed it", async () => {
    const url = await postgres.createDatabase();
    const [here, other] = await Promise.all([createPostgresOutbox(url), createPostgresOutbox(url)]);
    try {
      await here.addEndpoint({ url: "https://receiver.example/hook", token: "t", secrets: [secret] });
      await enqueuePlant(here, { name: "Leased for a second" });
      const [claimed] = await here.claimDue({ workerId: "here", limit: 10, leaseMs: 1_000 });
      expect(claimed).toBeDefined();
      expect(await other.claimDue({ workerId: "other", limit: 10, leaseMs: 60_000 })).toEqual([]);
      // The suite's lease tests run on an injected clock; this one waits for the database's own.
      const taken = await waitFor(
        async () => (await other.claimDue({ workerId: "other", limit: 10, leaseMs: 60_000 }))[0],
        30_000,
        50,
      );
      expect(taken.id).toBe(claimed?.id);
    } finally {
      await here.close();
      await other.close();
    }
  });

  it("makes a plant added by a process whose clock runs ahead due at once for every worker", async () => {
    const url = await postgres.createDatabase();
    const [writer, worker] = await Promise.all([createPostgresOutbox(url), createPostgresOutbox(url)]);
    try {
      await writer.addEndpoint({ url: "https://receiver.example/hook", token: "t", secrets: [secret] });
      skewed(3_600_000);
      const { deliveries } = await enqueuePlant(writer, { name: "From the future" });
      vi.useRealTimers();
      const claimed = await worker.claimDue({ workerId: "worker", limit: 10, leaseMs: 60_000 });
      expect(claimed.map((delivery) => delivery.id)).toEqual(deliveries.map((delivery) => delivery.id));
    } finally {
      vi.useRealTimers();
      await writer.close();
      await worker.close();
    }
  });

  it("schedules a retry by its delay on the database clock, whatever the recording process's clock says", async () => {
    const url = await postgres.createDatabase();
    const outbox = await createPostgresOutbox(url);
    try {
      await outbox.addEndpoint({ url: "https://receiver.example/hook", token: "t", secrets: [secret] });
      await enqueuePlant(outbox, { name: "Retried" });
      const [claimed] = await outbox.claimDue({ workerId: "behind", limit: 10, leaseMs: 60_000 });
      if (!claimed) throw new Error("nothing claimed");
      skewed(-3_600_000);
      // Five seconds from now on this (slow) clock: still five seconds away, not an hour ago.
      await outbox.recordAttempts(
        [
          {
            deliveryId: claimed.id,
            workerId: "behind",
            leaseUntil: claimed.leaseUntil,
            result: { startedAt: new Date(), durationMs: 1, status: 500, error: null, responseBody: "" },
          },
        ],
        { policy: createRetryPolicy({ schedule: "0,5s", jitter: 0 }) },
      );
      vi.useRealTimers();
      expect(await outbox.claimDue({ workerId: "other", limit: 10, leaseMs: 60_000 })).toEqual([]);
      const delivery = await outbox.getDelivery(claimed.id);
      expect(delivery?.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
    } finally {
      vi.useRealTimers();
      await outbox.close();
    }
  });
});

describe("a PostgreSQL record that read without locks", () => {
  const attempt = { startedAt: new Date(), durationMs: 1, error: null, responseBody: "" };

  it("records from what is stored at its write: a lease taken over after its read leaves the delivery to the new holder", async () => {
    const url = await postgres.createDatabase();
    const outbox = await createPostgresOutbox(url);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await outbox.addEndpoint({ url: "https://receiver.example/hook", token: "t", secrets: [secret] });
      await enqueuePlant(outbox, { name: "Taken over" });
      const [mine] = await outbox.claimDue({ workerId: "w1", limit: 1, leaseMs: 60_000 });
      if (!mine) throw new Error("nothing claimed");
      // Another worker's takeover, committed while the record waits on the row (after reading it).
      await admin.query("BEGIN");
      await admin.query(
        "UPDATE webhook_deliveries SET lease_owner = 'w2', lease_until = lease_until + 1000 WHERE id = $1",
        [mine.id],
      );
      const recording = outbox.recordAttempts(
        [
          {
            deliveryId: mine.id,
            workerId: "w1",
            leaseUntil: mine.leaseUntil,
            result: { ...attempt, status: 200 },
          },
        ],
        { policy: createRetryPolicy() },
      );
      await waitFor(async () => {
        // Inside a transaction the statistics views keep their first snapshot unless cleared.
        await admin.query("SELECT pg_stat_clear_snapshot()");
        const { rows } = await admin.query(
          "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO webhook_attempts%'",
        );
        return rows.length > 0 ? true : undefined;
      });
      await admin.query("COMMIT");
      expect((await recording).recorded).toEqual([{ held: false, attempt: 1, outcome: "delivered" }]);
      const after = await admin.query(
        "SELECT status, lease_owner, attempt_count FROM webhook_deliveries WHERE id = $1",
        [mine.id],
      );
      expect(after.rows[0]).toEqual({ status: "pending", lease_owner: "w2", attempt_count: 1 });
      expect((await outbox.listAttempts(mine.id)).map((a) => [a.workerId, a.attempt])).toEqual([["w1", 1]]);
    } finally {
      await admin.end();
      await outbox.close();
    }
  });
});

describe("PostgreSQL outbox schema upgrade", () => {
  it("opens an outbox made by 0.1 (plants in its own tables), keeps every row and drains what was pending", async () => {
    const url = await postgres.createDatabase();
    const receiver = await startTestReceiver();
    const secret = generateWebhookSecret();
    const pool = new pg.Pool({ connectionString: url });
    try {
      // The oldest 0.1 databases lack endpoints.last_failure_at (added by a later 0.1 on open).
      await pool.query(
        LEGACY_POSTGRES_SCHEMA.replace("last_failure_at BIGINT,", "").replace(/ALTER TABLE .*;/, ""),
      );
      for (const sql of legacyRows(`${receiver.url}/plant/webhook`, [secret])) await pool.query(sql);
      const outbox = await createPostgresOutbox(url);
      try {
        await expectMigratedOutbox(outbox, receiver, secret);
      } finally {
        await outbox.close();
      }
      const tables = await pool.query<{ name: string }>(
        "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename",
      );
      // The queue's old tables are gone; plants belongs to the application and stays.
      expect(tables.rows.map((table) => table.name)).toEqual([
        "plants",
        "webhook_attempts",
        "webhook_deliveries",
        "webhook_endpoints",
        "webhook_exclusions",
        "webhook_messages",
        "webhook_schema",
        "webhook_subscribers",
      ]);
    } finally {
      await pool.end();
      await receiver.close();
    }
  });
});

describe("PostgreSQL outbox made before trace contexts were kept", () => {
  it("gains the traceparent and event type columns on open: old messages claim without them, new ones keep theirs", async () => {
    const url = await postgres.createDatabase();
    const before = await createPostgresOutbox(url);
    await before.addEndpoint({ url: "http://127.0.0.1:9/hook", token: "t", secrets: [secret] });
    await before.close();
    // The 0.2 layout: no traceparent column (and no schema version), and a message queued then.
    const pool = new pg.Pool({ connectionString: url });
    try {
      await pool.query(`ALTER TABLE webhook_messages DROP COLUMN traceparent; DROP TABLE webhook_schema;
        ALTER TABLE webhook_messages DROP COLUMN event_type; ALTER TABLE webhook_deliveries DROP COLUMN event_type;
        ALTER TABLE webhook_endpoints DROP COLUMN event_types;
        INSERT INTO webhook_messages (webhook_id, payload, created_at) VALUES ('msg_old', '{}', 0);
        INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, status, next_attempt_at, created_at, updated_at)
        VALUES (1, 1, 'msg_old', 'pending', 0, 0, 0)`);
      const outbox = await createPostgresOutbox(url);
      try {
        const [old] = await outbox.claimDue({ workerId: "me", limit: 10, leaseMs: 60_000 });
        expect(old?.webhookId).toBe("msg_old");
        expect(old?.traceparent).toBeUndefined();
        const queued = await outbox.enqueue({ payload: { id: 2, name: "New" } });
        const stored = (await outbox.getMessage(queued.messageId))?.traceparent;
        expect(parseTraceparent(stored)).toBeDefined();
        const [claimed] = await outbox.claimDue({ workerId: "me", limit: 10, leaseMs: 60_000 });
        expect(claimed?.traceparent).toBe(stored);
        // Its endpoint, made before event types, takes every message: typed ones too.
        expect((await outbox.getEndpoint(1))?.eventTypes).toBeNull();
        expect(old?.eventType).toBeNull();
        expect(await outbox.enqueue({ eventType: "orderCreated", payload: { id: 3 } })).toMatchObject({
          deliveries: 1,
        });
      } finally {
        await outbox.close();
      }
    } finally {
      await pool.end();
    }
  });
});

describe("PostgreSQL enqueueMany and trace contexts", () => {
  it("stores a valid traceparent of its own with each message of a batch, and claims return it", async () => {
    const url = await postgres.createDatabase();
    const outbox = await createPostgresOutbox(url);
    try {
      await outbox.addEndpoint({ url: "http://127.0.0.1:9/hook", token: "t", secrets: [secret] });
      const queued = await outbox.enqueueMany([
        { payload: { id: 1, name: "One" } },
        { payload: { id: 2, name: "Two" } },
        { payload: { id: 3, name: "Three" } },
      ]);
      const stored = await Promise.all(
        queued.map(async (result) => (await outbox.getMessage(result.messageId))?.traceparent),
      );
      const traceIds = stored.map((value) => parseTraceparent(value)?.traceId);
      expect(traceIds.every((id) => id !== undefined)).toBe(true);
      expect(new Set(traceIds).size).toBe(3);
      const claimed = await outbox.claimDue({ workerId: "me", limit: 10, leaseMs: 60_000 });
      expect(new Map(claimed.map((delivery) => [delivery.messageId, delivery.traceparent]))).toEqual(
        new Map(queued.map((result, index) => [result.messageId, stored[index]])),
      );
    } finally {
      await outbox.close();
    }
  });
});

describe("a PostgreSQL outbox opened from a URL, when the server ends its connections", () => {
  it("reports it through onError instead of crashing the process, and keeps working", async () => {
    const url = await postgres.createDatabase();
    const errors: Array<{ code?: string }> = [];
    const outbox = await createPostgresOutbox(url, {
      onError: (error) => errors.push(error as { code?: string }),
    });
    try {
      await outbox.addEndpoint({
        url: "http://127.0.0.1:9/plant/webhook",
        token: "tok",
        secrets: [generateWebhookSecret()],
      });
      const before = await enqueuePlant(outbox, { name: "Before the restart" });
      // What a server restart or a failover does to every open connection, idle pooled ones included.
      expect(await endConnections(url)).toBeGreaterThan(0);
      await vi.waitFor(() => expect(errors.map((error) => error.code)).toContain("57P01"));
      const { deliveries } = await enqueuePlant(outbox, { name: "After the restart" });
      expect(deliveries).toHaveLength(1);
      expect((await outbox.getMessage(before.plant.messageId))?.webhookId).toBe(before.plant.webhookId);
    } finally {
      await outbox.close();
    }
  });
});
