/**
 * The store's plants, in a table of its own (`store_` prefix) beside the queue's `webhook_` tables, so the
 * store can share a database with other applications (the receiver app keeps its own `plants`).
 * Times are Unix milliseconds. Idempotent; written for both SQLite and PostgreSQL.
 */
export function storePlantsSchema(
  idType: "INTEGER PRIMARY KEY AUTOINCREMENT" | "BIGSERIAL PRIMARY KEY",
): string {
  const int = idType.startsWith("BIGSERIAL") ? "BIGINT" : "INTEGER";
  return `
CREATE TABLE IF NOT EXISTS store_plants (
  id ${idType},
  name TEXT NOT NULL,
  tag TEXT,
  webhook_id TEXT NOT NULL UNIQUE,
  idempotency_key TEXT UNIQUE,
  request_hash TEXT,
  queued INTEGER NOT NULL DEFAULT 0,
  created_at ${int} NOT NULL
);
CREATE INDEX IF NOT EXISTS store_plants_created_at ON store_plants (created_at);
`;
}

/**
 * Moves the plants of a 0.1 store (table `plants`, whose bodies the queue has already taken over as its
 * messages under the same ids) into `store_plants`, keeping their ids.
 */
export const LEGACY_PLANTS_MIGRATION = `
INSERT INTO store_plants (id, name, tag, webhook_id, queued, created_at)
  SELECT p.id, p.name, p.tag, p.webhook_id,
    (SELECT count(*) FROM webhook_deliveries d WHERE d.message_id = p.id), p.created_at
  FROM plants p;
DROP TABLE plants;
`;
