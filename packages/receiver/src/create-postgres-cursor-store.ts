import pg from "pg";
import type { CursorStore } from "./cursor-store.js";

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
  const table = options.table ?? "plant_webhook_cursor";
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new TypeError("table must be a plain SQL identifier");
  const owned = typeof options.pool === "string";
  const pool =
    typeof options.pool === "string" ? new pg.Pool({ connectionString: options.pool }) : options.pool;
  // Without a listener, an idle connection the server ended would be an uncaught exception.
  if (owned) pool.on("error", (error) => options.onError?.(error));
  let ready: Promise<void> | undefined;
  // Two instances starting together would race on CREATE TABLE IF NOT EXISTS (not atomic in
  // PostgreSQL): serialised with a transaction-scoped advisory lock, as the de-duplication store does.
  const init = async () => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [table]);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${table} (key TEXT PRIMARY KEY, cursor TEXT NOT NULL, at BIGINT NOT NULL)`,
      );
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };
  const whenReady = () => {
    ready ??= init().catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };
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
