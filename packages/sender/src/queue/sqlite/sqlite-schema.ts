/**
 * The SQLite outbox schema, current version; times are Unix milliseconds. Idempotent. Every table carries
 * the `webhook_` prefix, so the queue can live in the caller's own database beside tables of its own.
 * Columns added since version 1 come last, as an upgraded database has them (`migrateSchema`), so both
 * have the same tables, columns and indexes (a test compares them).
 */
export const SQLITE_SCHEMA = `
CREATE TABLE IF NOT EXISTS webhook_messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id TEXT NOT NULL UNIQUE,
  idempotency_key TEXT UNIQUE,
  payload TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  traceparent TEXT,
  event_type TEXT,
  subscriber_id BIGINT,
  ordering_key TEXT
);
CREATE INDEX IF NOT EXISTS webhook_messages_created_at ON webhook_messages (created_at);
CREATE TABLE IF NOT EXISTS webhook_endpoints (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  url TEXT NOT NULL,
  token TEXT NOT NULL,
  secrets TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  disabled_reason TEXT,
  failing_since INTEGER,
  last_failure_at INTEGER,
  created_at INTEGER NOT NULL,
  event_types TEXT,
  subscriber_id BIGINT REFERENCES webhook_subscribers (id) ON DELETE CASCADE,
  verified_at BIGINT,
  rate_limit INTEGER,
  rate_tokens DOUBLE PRECISION,
  rate_at BIGINT,
  timeouts INTEGER NOT NULL DEFAULT 0,
  slow_until BIGINT,
  rate_next_at DOUBLE PRECISION,
  signature_headers TEXT,
  headers TEXT,
  filter TEXT,
  filtered_count BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS webhook_endpoints_url ON webhook_endpoints (url);
-- Every enqueue asks for the endpoints with a filter: found through this index, however many have none.
CREATE INDEX IF NOT EXISTS webhook_endpoints_filtered ON webhook_endpoints (id) WHERE filter IS NOT NULL;
CREATE TABLE IF NOT EXISTS webhook_subscribers (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  message_id INTEGER NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
  endpoint_id INTEGER NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  webhook_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempt_count INTEGER NOT NULL DEFAULT 0,
  round_attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  lease_owner TEXT,
  lease_until INTEGER,
  last_status INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  event_type TEXT,
  ordering_key TEXT
);
-- One delivery per message and endpoint, as on PostgreSQL (databases made before schema version 1 keep their
-- equivalent UNIQUE (webhook_id, endpoint_id): a message has one webhook id); it also serves the cascade.
CREATE UNIQUE INDEX IF NOT EXISTS webhook_deliveries_message_endpoint ON webhook_deliveries (message_id, endpoint_id);
DROP INDEX IF EXISTS webhook_deliveries_message;
CREATE INDEX IF NOT EXISTS webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint_id, status, next_attempt_at);
CREATE INDEX IF NOT EXISTS webhook_deliveries_finished ON webhook_deliveries (status, updated_at);
-- What a claim asks of a keyed delivery, "is one queued before it with its key still pending?", answered
-- from the pending keyed rows only (unkeyed and finished rows are not in it).
CREATE INDEX IF NOT EXISTS webhook_deliveries_ordering ON webhook_deliveries (endpoint_id, ordering_key, id)
  WHERE ordering_key IS NOT NULL AND status = 'pending';
-- The endpoints that have pending work, found by skipping from one to the next: a claim costs what is
-- pending, not how many endpoints exist (PostgreSQL's schema has the same index).
CREATE INDEX IF NOT EXISTS webhook_deliveries_pending_due ON webhook_deliveries (endpoint_id, next_attempt_at, id)
  WHERE status = 'pending';
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
CREATE TABLE IF NOT EXISTS webhook_schema (version INTEGER NOT NULL);
`;
