import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestReceiver, waitFor } from "@plant-store/testing";
import { generateWebhookSecret, parseTraceparent } from "@plant-store/types";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../../src/queue/operations/migrate-schema.js";
import { createSqliteOutbox } from "../../src/sqlite.js";
import { describeAlerts } from "../fixtures/alerts-suite.js";
import { describeAttemptTimeline } from "../fixtures/attempt-timeline-suite.js";
import { describeDeliveryControl } from "../fixtures/delivery-control-suite.js";
import { describeEndpointOptions } from "../fixtures/endpoint-options-suite.js";
import { enqueuePlant } from "../fixtures/enqueue-plant.js";
import { expectMigratedOutbox } from "../fixtures/expect-migrated-outbox.js";
import { LEGACY_SQLITE_SCHEMA, legacyRows } from "../fixtures/legacy-outbox.js";
import { describeOutbox, type OutboxFactory } from "../fixtures/outbox-suite.js";
import { SQLITE_SCHEMA_V2 } from "../fixtures/schema-v2.js";
import { describeSubscribers } from "../fixtures/subscriber-suite.js";

const sqlite: OutboxFactory = {
  async open(options = {}) {
    const dir = mkdtempSync(join(tmpdir(), "sender-sqlite-"));
    const file = join(dir, "store.db");
    return {
      outbox: createSqliteOutbox(file, options),
      second: async () => createSqliteOutbox(file, options),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
};
describeOutbox("SQLite", sqlite);
describeSubscribers("SQLite", sqlite);
describeDeliveryControl("SQLite", sqlite);
describeAttemptTimeline("SQLite", sqlite);
describeAlerts("SQLite", sqlite);
describeEndpointOptions("SQLite", sqlite);

describe("SQLite outbox made at schema version 2 (event types)", () => {
  it("gains subscribers on open: every endpoint and message is the operator's and everyone's, and keeps working", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sender-sqlite-v2-"));
    const file = join(dir, "store.db");
    try {
      const db = new Database(file);
      db.exec(SQLITE_SCHEMA_V2);
      db.exec(`INSERT INTO webhook_endpoints (url, token, secrets, event_types, created_at)
          VALUES ('http://127.0.0.1:9/hook', 't', '${JSON.stringify([generateWebhookSecret()])}', NULL, 0);
        INSERT INTO webhook_messages (webhook_id, event_type, payload, created_at) VALUES ('msg_v2', 'orderCreated', '{}', 0);
        INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, event_type, status, next_attempt_at, created_at, updated_at)
          VALUES (1, 1, 'msg_v2', 'orderCreated', 'pending', 0, 0, 0)`);
      db.close();
      const outbox = createSqliteOutbox(file);
      try {
        const version = outbox.db.prepare("SELECT version FROM webhook_schema").pluck().all();
        expect(version).toEqual([SCHEMA_VERSION]);
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
          secrets: [generateWebhookSecret()],
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
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("SQLite outbox durability setting", () => {
  it("uses synchronous NORMAL by default and FULL when asked, on a handle it is given too", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sender-sqlite-sync-"));
    try {
      const db = new Database(join(dir, "store.db"));
      const normal = createSqliteOutbox(db);
      expect(db.pragma("synchronous", { simple: true })).toBe(1);
      await normal.close();
      const full = createSqliteOutbox(db, { synchronous: "FULL" });
      expect(db.pragma("synchronous", { simple: true })).toBe(2);
      await full.close();
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("SQLite outbox and other processes", () => {
  it("tells a listening worker about another connection's commit (a CLI adding a plant) without a poll", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sender-sqlite-watch-"));
    const file = join(dir, "store.db");
    const serving = createSqliteOutbox(file, { watchIntervalMs: 20 });
    const cli = createSqliteOutbox(file);
    try {
      let woken = 0;
      const stop = serving.onWork(() => {
        woken += 1;
      });
      // Its own writes wake it directly; only the other connection's commit is watched for.
      await enqueuePlant(cli, { name: "Added from another process" });
      await waitFor(() => (woken > 0 ? true : undefined), 5000);
      stop();
      const before = woken;
      // A listener added after the stop sees the next commit: by then the stopped one would have too.
      let witness = 0;
      const stopWitness = serving.onWork(() => {
        witness += 1;
      });
      await enqueuePlant(cli, { name: "Only the witness listening" });
      await waitFor(() => (witness > 0 ? true : undefined), 5000);
      stopWitness();
      expect(woken).toBe(before);
    } finally {
      await cli.close();
      await serving.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("opens an outbox made by 0.1 (plants in its own tables), keeps every row and drains what was pending", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sender-sqlite-upgrade-"));
    const receiver = await startTestReceiver();
    const secret = generateWebhookSecret();
    try {
      const db = new Database(join(dir, "store.db"));
      // The oldest 0.1 files lack endpoints.last_failure_at (added by a later 0.1 on open).
      db.exec(LEGACY_SQLITE_SCHEMA.replace("last_failure_at INTEGER,", ""));
      for (const sql of legacyRows(`${receiver.url}/plant/webhook`, [secret])) db.exec(sql);
      db.close();
      const outbox = createSqliteOutbox(join(dir, "store.db"));
      try {
        await expectMigratedOutbox(outbox, receiver, secret);
        const tables = outbox.db
          .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
          .all()
          .map((table) => table.name);
        // The queue's old tables are gone; plants belongs to the application and stays.
        expect(tables).toEqual(expect.arrayContaining(["plants", "webhook_messages", "webhook_deliveries"]));
        expect(tables).not.toContain("deliveries");
        expect(tables).not.toContain("endpoints");
        expect(tables).not.toContain("attempts");
      } finally {
        await outbox.close();
      }
    } finally {
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("SQLite outbox made before trace contexts were kept", () => {
  it("gains the traceparent and event type columns on open: old messages claim without them, new ones keep theirs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sender-sqlite-trace-"));
    const file = join(dir, "store.db");
    try {
      const before = createSqliteOutbox(file);
      await before.addEndpoint({
        url: "http://127.0.0.1:9/hook",
        token: "t",
        secrets: [generateWebhookSecret()],
      });
      await before.close();
      // The 0.2 layout: no traceparent column (and no schema version), and a message queued then.
      const db = new Database(file);
      db.exec(`ALTER TABLE webhook_messages DROP COLUMN traceparent; DROP TABLE webhook_schema;
        ALTER TABLE webhook_messages DROP COLUMN event_type; ALTER TABLE webhook_deliveries DROP COLUMN event_type;
        ALTER TABLE webhook_endpoints DROP COLUMN event_types`);
      db.exec(`INSERT INTO webhook_messages (webhook_id, payload, created_at) VALUES ('msg_old', '{}', 0);
        INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, status, next_attempt_at, created_at, updated_at)
        VALUES (1, 1, 'msg_old', 'pending', 0, 0, 0)`);
      db.close();
      const outbox = createSqliteOutbox(file);
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
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
