import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
