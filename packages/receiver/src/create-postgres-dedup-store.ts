import type pg from "pg";
import {
  DEFAULT_DEDUP_LEASE_MS,
  DEFAULT_DEDUP_TTL_MS,
  type DedupStore,
  type DedupStoreOptions,
} from "./dedup-store.js";
import { openPostgresStoreTable } from "./open-postgres-store-table.js";

export interface PostgresDedupStoreOptions extends DedupStoreOptions {
  /** A `pg.Pool` (left open on `close()`) or a connection string (a pool is opened and closed here). */
  pool: pg.Pool | string;
  /** Table name; default `plant_webhook_dedup`. Letters, digits and `_` only. */
  table?: string;
  /**
   * For a pool opened from a connection string: an idle pooled connection the server ended (a
   * restart, a failover). The pool drops it and the next query reconnects. Default: ignored.
   */
  onError?: (error: Error) => void;
}

/**
 * De-duplication shared by many receiver instances. Each claim is one atomic
 * `INSERT ... ON CONFLICT DO UPDATE ... WHERE`, so of two racing instances exactly one gets the row.
 */
export function createPostgresDedupStore(options: PostgresDedupStoreOptions): DedupStore {
  const { pool, table, owned, whenReady } = openPostgresStoreTable(
    options,
    "plant_webhook_dedup",
    async (client, table) => {
      await client.query(`CREATE TABLE IF NOT EXISTS ${table} (
        id TEXT PRIMARY KEY,
        state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
        at BIGINT NOT NULL,
        claim_token TEXT
      )`);
      // Tables made before claims had owners. Looked up first: ALTER TABLE takes an exclusive lock on
      // the table even when the column is already there.
      const column = await client.query(
        `SELECT 1 FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = lower($1) AND column_name = 'claim_token'`,
        [table],
      );
      if (column.rowCount === 0) {
        await client.query(`ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS claim_token TEXT`);
      }
      await client.query(`CREATE INDEX IF NOT EXISTS ${table}_at ON ${table} (at)`);
    },
  );
  const ttlMs = options.ttlMs ?? DEFAULT_DEDUP_TTL_MS;
  const leaseMs = options.leaseMs ?? DEFAULT_DEDUP_LEASE_MS;
  const now = options.now ?? Date.now;
  let claims = 0;

  return {
    async claim(id, token) {
      await whenReady();
      const t = now();
      if (++claims % 1000 === 1) {
        await pool.query(`DELETE FROM ${table} WHERE state = 'done' AND at < $1`, [t - ttlMs]);
      }
      const claimed = await pool.query(
        `INSERT INTO ${table} AS d (id, state, at, claim_token) VALUES ($1, 'pending', $2, $5)
         ON CONFLICT (id) DO UPDATE SET state = 'pending', at = $2, claim_token = $5
         WHERE (d.state = 'pending' AND d.at < $3) OR (d.state = 'done' AND d.at < $4)
         RETURNING id`,
        [id, t, t - leaseMs, t - ttlMs, token ?? null],
      );
      if (claimed.rowCount === 1) return "claimed";
      const row = await pool.query<{ state: string }>(`SELECT state FROM ${table} WHERE id = $1`, [id]);
      // Gone between the two statements: it was just released; ask again after a wait.
      if (row.rows[0] === undefined) return "in-progress";
      return row.rows[0].state === "done" ? "completed" : "in-progress";
    },
    async complete(id) {
      await whenReady();
      // An upsert rather than an UPDATE, and whoever holds the claim: should the claim's row be gone
      // (deleted, or never stored) or taken over by another instance, the handled id is still remembered.
      await pool.query(
        `INSERT INTO ${table} (id, state, at, claim_token) VALUES ($1, 'done', $2, NULL)
         ON CONFLICT (id) DO UPDATE SET state = 'done', at = EXCLUDED.at, claim_token = NULL`,
        [id, now()],
      );
    },
    async release(id, token) {
      await whenReady();
      // Only the caller's own claim: after its lease ran out another instance may hold the id.
      await pool.query(
        `DELETE FROM ${table} WHERE id = $1 AND state = 'pending' AND ($2::text IS NULL OR claim_token = $2)`,
        [id, token ?? null],
      );
    },
    async close() {
      if (owned) await pool.end();
    },
  };
}
