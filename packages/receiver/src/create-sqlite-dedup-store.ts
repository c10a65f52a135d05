import type Database from "better-sqlite3";
import {
  DEFAULT_DEDUP_LEASE_MS,
  DEFAULT_DEDUP_TTL_MS,
  type DedupStore,
  type DedupStoreOptions,
} from "./dedup-store.js";
import { openSqliteStoreTable } from "./open-sqlite-store-table.js";

export interface SqliteDedupStoreOptions extends DedupStoreOptions {
  /** A better-sqlite3 `Database` (left open on `close()`) or a file path (opened and closed here). */
  database: Database.Database | string;
  /** Table name; default `plant_webhook_dedup`. Letters, digits and `_` only. */
  table?: string;
}

/**
 * Durable de-duplication in SQLite: survives restarts, and works across processes sharing the file
 * (every claim is one atomic upsert; WAL mode and a busy timeout let writers queue).
 */
export function createSqliteDedupStore(options: SqliteDedupStoreOptions): DedupStore {
  const { db, table, owned } = openSqliteStoreTable(options, "plant_webhook_dedup", (db, table) => {
    db.exec(`CREATE TABLE IF NOT EXISTS ${table} (
      id TEXT PRIMARY KEY,
      state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
      at INTEGER NOT NULL,
      claim_token TEXT
    )`);
    // Tables made before claims had owners get the column, in a write transaction that looks again,
    // so that two processes opening the same file do not both add it.
    const hasToken = db.prepare<[], { n: number }>(
      `SELECT count(*) AS n FROM pragma_table_info('${table}') WHERE name = 'claim_token'`,
    );
    if (hasToken.get()?.n === 0) {
      db.transaction(() => {
        if (hasToken.get()?.n === 0) db.exec(`ALTER TABLE ${table} ADD COLUMN claim_token TEXT`);
      }).immediate();
    }
    db.exec(`CREATE INDEX IF NOT EXISTS ${table}_at ON ${table} (at)`);
  });
  const ttlMs = options.ttlMs ?? DEFAULT_DEDUP_TTL_MS;
  const leaseMs = options.leaseMs ?? DEFAULT_DEDUP_LEASE_MS;
  const now = options.now ?? Date.now;
  // Takes the id when it is new, released, expired or abandoned; otherwise leaves the row alone.
  const upsert = db.prepare<[{ id: string; t: number; lease: number; ttl: number; token: string | null }]>(
    `INSERT INTO ${table} (id, state, at, claim_token) VALUES (@id, 'pending', @t, @token)
     ON CONFLICT (id) DO UPDATE SET state = 'pending', at = @t, claim_token = @token
     WHERE (state = 'pending' AND at < @lease) OR (state = 'done' AND at < @ttl)
     RETURNING id`,
  );
  const select = db.prepare<[string], { state: string }>(`SELECT state FROM ${table} WHERE id = ?`);
  // An upsert rather than an UPDATE, and whoever holds the claim: should the claim's row be gone
  // (pruned, or never stored) or taken over by another instance, the handled id is still remembered.
  const complete = db.prepare<[string, number]>(
    `INSERT INTO ${table} (id, state, at, claim_token) VALUES (?, 'done', ?, NULL)
     ON CONFLICT (id) DO UPDATE SET state = 'done', at = excluded.at, claim_token = NULL`,
  );
  // Only the caller's own claim: after its lease ran out another instance may hold the id.
  const release = db.prepare<[{ id: string; token: string | null }]>(
    `DELETE FROM ${table} WHERE id = @id AND state = 'pending' AND (@token IS NULL OR claim_token = @token)`,
  );
  const prune = db.prepare<[number]>(`DELETE FROM ${table} WHERE state = 'done' AND at < ?`);
  let claims = 0;

  return {
    async claim(id, token) {
      const t = now();
      // Expired rows would also be overwritten on demand; pruning keeps the file from growing forever.
      if (++claims % 1000 === 1) prune.run(t - ttlMs);
      // all(), never get(): get() stops after the first row, and in autocommit mode the commit then
      // happens when the statement is reset, where a failure (disk full, read-only file) is
      // swallowed. The row comes back although nothing was stored.
      const claimed = upsert.all({ id, t, lease: t - leaseMs, ttl: t - ttlMs, token: token ?? null });
      if (claimed.length > 0) return "claimed";
      const row = select.get(id);
      if (row === undefined) return "in-progress";
      return row.state === "done" ? "completed" : "in-progress";
    },
    async complete(id) {
      complete.run(id, now());
    },
    async release(id, token) {
      release.run({ id, token: token ?? null });
    },
    async close() {
      if (owned) db.close();
    },
  };
}
