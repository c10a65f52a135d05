import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@plant-store/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createSqliteOutbox } from "../../src/sqlite.js";
import { describeOutbox } from "../fixtures/outbox-suite.js";

describeOutbox("SQLite", {
  async open() {
    const dir = mkdtempSync(join(tmpdir(), "sender-sqlite-"));
    const file = join(dir, "store.db");
    return {
      outbox: createSqliteOutbox(file),
      second: async () => createSqliteOutbox(file),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
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

describe("SQLite outbox batch of attempt records", () => {
  it("records several attempts in one call, each checked against its own lease", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sender-sqlite-batch-"));
    const outbox = createSqliteOutbox(join(dir, "store.db"));
    try {
      await outbox.addEndpoint({ url: "http://127.0.0.1:9/hook", token: "t", secrets: [] });
      await outbox.addPlant({ name: "One" });
      await outbox.addPlant({ name: "Two" });
      const [first, second] = await outbox.claimDue("me", 10, 60_000);
      if (!first || !second) throw new Error("nothing claimed");
      const attempt = { startedAt: new Date(), durationMs: 3, status: 200, error: null, responseBody: "ok" };
      const held = await outbox.recordAttempts?.([
        { deliveryId: first.id, workerId: "me", attempt, outcome: "delivered", endpointSucceeded: true },
        {
          deliveryId: second.id,
          workerId: "someone-else",
          attempt,
          outcome: "delivered",
          endpointSucceeded: true,
        },
        { deliveryId: 999_999, workerId: "me", attempt, outcome: "delivered", endpointSucceeded: true },
      ]);
      expect(held?.map((recorded) => recorded.held)).toEqual([true, false, false]);
      expect((await outbox.getDelivery(first.id))?.status).toBe("delivered");
      expect((await outbox.getDelivery(second.id))?.status).toBe("pending");
      expect(await outbox.listAttempts(first.id)).toHaveLength(1);
      expect(await outbox.listAttempts(second.id)).toHaveLength(1);
    } finally {
      await outbox.close();
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
      await cli.addPlant({ name: "Added from another process" });
      await waitFor(() => (woken > 0 ? true : undefined), 5000);
      stop();
      const before = woken;
      await cli.addPlant({ name: "Nobody listening" });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(woken).toBe(before);
    } finally {
      await cli.close();
      await serving.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("adds endpoints.last_failure_at to a file created by an earlier release", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sender-sqlite-upgrade-"));
    try {
      const db = new Database(join(dir, "store.db"));
      await createSqliteOutbox(db).close();
      db.exec("ALTER TABLE endpoints DROP COLUMN last_failure_at");
      await createSqliteOutbox(db).close();
      const columns = db.prepare<[], { name: string }>("PRAGMA table_info(endpoints)").all();
      expect(columns.map((column) => column.name)).toContain("last_failure_at");
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
