import { schemaTables } from "../schema-tables.js";

const tables = schemaTables({ id: "INTEGER PRIMARY KEY AUTOINCREMENT", long: "INTEGER" });

/**
 * The SQLite outbox schema, current version; times are Unix milliseconds. Idempotent. Every table carries
 * the `webhook_` prefix, so the queue can live in the caller's own database beside tables of its own.
 * The tables both databases create alike are `schemaTables`; a new database has the same tables, columns
 * and indexes as an upgraded one (a test compares them).
 */
export const SQLITE_SCHEMA = `
${tables.messages}
${tables.endpoints}
${tables.subscribers}
${tables.deliveries};
-- As on PostgreSQL: databases made before schema version 1 keep their equivalent UNIQUE (webhook_id,
-- endpoint_id) (a message has one webhook id).
${tables.oneDeliveryPerEndpoint}
DROP INDEX IF EXISTS webhook_deliveries_message;
CREATE INDEX IF NOT EXISTS webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint_id, status, next_attempt_at);
CREATE INDEX IF NOT EXISTS webhook_deliveries_finished ON webhook_deliveries (status, updated_at);
${tables.ordering}
${tables.pendingDue}
${tables.endpointMessage}
CREATE TABLE IF NOT EXISTS webhook_attempts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  worker_id TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  status INTEGER,
  error TEXT,
  response_body TEXT NOT NULL,
  outcome TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS webhook_attempts_delivery ON webhook_attempts (delivery_id);
-- endpointStats(since): the attempts of the last hour, without reading the whole log (covering: no row look-up).
CREATE INDEX IF NOT EXISTS webhook_attempts_started ON webhook_attempts (started_at, delivery_id, status);
${tables.exclusions}
${tables.version}
`;
