/**
 * The PostgreSQL outbox schema, current version; times are Unix milliseconds (BIGINT). Idempotent. Every
 * table carries the `webhook_` prefix, so the queue can live in the caller's own database beside tables of
 * its own. Columns added since version 1 come last, as an upgraded database has them (`migrateSchema`), so
 * both have the same tables, columns and indexes (a test compares them).
 *
 * Written for little WAL per delivery: finishing a delivery changes its status, which no HOT update can
 * carry, so every index of the table gets a new entry. Hence few indexes, partial where they can be: the
 * claim's index holds pending rows only and the sweep's finished rows only, one unique index on
 * (message, endpoint) serves both de-duplication and the message's cascade, and an attempt lives in its
 * primary key (delivery, id) alone, with no foreign key: its check would lock the delivery row once more
 * (a WAL record per attempt) in the very statement that updates it; the outbox deletes a delivery's
 * attempts itself (retention, endpoint removal). Databases made before keep their attempts' extra
 * index; their deliveries' old indexes and the attempts' foreign key are replaced here.
 */
export const POSTGRES_SCHEMA = `
CREATE TABLE IF NOT EXISTS webhook_messages (
  id BIGSERIAL PRIMARY KEY,
  webhook_id TEXT NOT NULL UNIQUE,
  idempotency_key TEXT UNIQUE,
  payload TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  traceparent TEXT,
  event_type TEXT,
  subscriber_id BIGINT,
  ordering_key TEXT
);
CREATE INDEX IF NOT EXISTS webhook_messages_created_at ON webhook_messages (created_at);
CREATE TABLE IF NOT EXISTS webhook_subscribers (
  id BIGSERIAL PRIMARY KEY,
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS webhook_endpoints (
  id BIGSERIAL PRIMARY KEY,
  url TEXT NOT NULL,
  token TEXT NOT NULL,
  secrets TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  disabled_reason TEXT,
  failing_since BIGINT,
  last_failure_at BIGINT,
  created_at BIGINT NOT NULL,
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
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id BIGSERIAL PRIMARY KEY,
  message_id BIGINT NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
  endpoint_id BIGINT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  webhook_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempt_count INTEGER NOT NULL DEFAULT 0,
  round_attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  lease_owner TEXT,
  lease_until BIGINT,
  last_status INTEGER,
  last_error TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  event_type TEXT,
  ordering_key TEXT
) WITH (fillfactor = 70);
CREATE UNIQUE INDEX IF NOT EXISTS webhook_deliveries_message_endpoint ON webhook_deliveries (message_id, endpoint_id);
CREATE INDEX IF NOT EXISTS webhook_deliveries_pending_due ON webhook_deliveries (endpoint_id, next_attempt_at, id)
  WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS webhook_deliveries_finished_at ON webhook_deliveries (updated_at)
  WHERE status IN ('delivered', 'failed');
-- What a claim asks of a keyed delivery, "is one queued before it with its key still pending?", answered
-- from the pending keyed rows only (unkeyed and finished rows are not in it).
CREATE INDEX IF NOT EXISTS webhook_deliveries_ordering ON webhook_deliveries (endpoint_id, ordering_key, id)
  WHERE ordering_key IS NOT NULL AND status = 'pending';
DROP INDEX IF EXISTS webhook_deliveries_endpoint_due;
DROP INDEX IF EXISTS webhook_deliveries_message;
DROP INDEX IF EXISTS webhook_deliveries_finished;
ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_webhook_id_endpoint_id_key;
CREATE TABLE IF NOT EXISTS webhook_attempts (
  id BIGSERIAL,
  delivery_id BIGINT NOT NULL,
  attempt INTEGER NOT NULL,
  worker_id TEXT NOT NULL,
  started_at BIGINT NOT NULL,
  duration_ms INTEGER NOT NULL,
  status INTEGER,
  error TEXT,
  response_body TEXT NOT NULL,
  outcome TEXT NOT NULL,
  PRIMARY KEY (delivery_id, id)
);
-- endpointStats(since): the attempts of the last hour without reading the whole log. BRIN, not a B-tree:
-- the log is written in time order, so a few bytes per block range find the recent rows, and an
-- attempt's insert costs the index next to nothing (the newest, unsummarised ranges are always read).
-- autosummarize: autovacuum summarises each range as it fills (200,000 attempts: 6.5 ms instead of a 110 ms scan).
CREATE INDEX IF NOT EXISTS webhook_attempts_started ON webhook_attempts USING brin (started_at) WITH (autosummarize = on);
ALTER TABLE webhook_attempts DROP CONSTRAINT IF EXISTS webhook_attempts_delivery_id_fkey;
CREATE TABLE IF NOT EXISTS webhook_schema (version INTEGER NOT NULL);
`;
