import type pg from "pg";
import type { CursorStore } from "./cursor-store.js";
import { openPostgresStoreTable } from "./open-postgres-store-table.js";

export interface PostgresCursorStoreOptions {
  /** A `pg.Pool` (left open on `close()`) or a connection string (a pool is opened and closed here). */
  pool: pg.Pool | string;
  /** Table name; default `plant_webhook_cursor`. Letters, digits and `_` only. */
  table?: string;
  /** For a pool opened from a connection string: an idle pooled connection the server ended. Default: ignored. */
  onError?: (error: Error) => void;
}

/** A catch-up's cursor in PostgreSQL, shared by every instance of the receiver (one row per events URL). */
export function createPostgresCursorStore(options: PostgresCursorStoreOptions): CursorStore {
  const { pool, table, owned, whenReady } = openPostgresStoreTable(
    options,
    "plant_webhook_cursor",
    async (client, table) => {
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${table} (key TEXT PRIMARY KEY, cursor TEXT NOT NULL, at BIGINT NOT NULL)`,
      );
    },
  );
  return {
    async get(key) {
      await whenReady();
      const found = await pool.query<{ cursor: string }>(`SELECT cursor FROM ${table} WHERE key = $1`, [key]);
      return found.rows[0]?.cursor;
    },
    async set(key, cursor) {
      await whenReady();
      await pool.query(
        `INSERT INTO ${table} (key, cursor, at) VALUES ($1, $2, $3)
         ON CONFLICT (key) DO UPDATE SET cursor = EXCLUDED.cursor, at = EXCLUDED.at`,
        [key, cursor, Date.now()],
      );
    },
    async close() {
      if (owned) await pool.end();
    },
  };
}
