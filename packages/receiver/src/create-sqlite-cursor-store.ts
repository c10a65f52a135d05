import type Database from "better-sqlite3";
import type { CursorStore } from "./cursor-store.js";
import { openSqliteStoreTable } from "./open-sqlite-store-table.js";

export interface SqliteCursorStoreOptions {
  /** A better-sqlite3 `Database` (left open on `close()`) or a file path (opened and closed here). */
  database: Database.Database | string;
  /** Table name; default `plant_webhook_cursor`. Letters, digits and `_` only. */
  table?: string;
}

/** A catch-up's cursor in SQLite: survives restarts; can share the file of the de-duplication store. */
export function createSqliteCursorStore(options: SqliteCursorStoreOptions): CursorStore {
  const { db, table, owned } = openSqliteStoreTable(options, "plant_webhook_cursor", (db, table) =>
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${table} (key TEXT PRIMARY KEY, cursor TEXT NOT NULL, at INTEGER NOT NULL)`,
    ),
  );
  const select = db.prepare<[string], { cursor: string }>(`SELECT cursor FROM ${table} WHERE key = ?`);
  const upsert = db.prepare<[string, string, number]>(
    `INSERT INTO ${table} (key, cursor, at) VALUES (?, ?, ?)
     ON CONFLICT (key) DO UPDATE SET cursor = excluded.cursor, at = excluded.at`,
  );
  return {
    async get(key) {
      return select.get(key)?.cursor;
    },
    async set(key, cursor) {
      upsert.run(key, cursor, Date.now());
    },
    async close() {
      if (owned) db.close();
    },
  };
}
