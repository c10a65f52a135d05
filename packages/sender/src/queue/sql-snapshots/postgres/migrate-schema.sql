SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

SELECT pg_advisory_xact_lock($1::bigint);

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

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

CREATE TABLE IF NOT EXISTS webhook_exclusions (
  endpoint_id BIGINT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  message_id BIGINT NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
  PRIMARY KEY (endpoint_id, message_id)
);

CREATE TABLE IF NOT EXISTS webhook_schema (version INTEGER NOT NULL);

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_messages ADD COLUMN traceparent TEXT;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_messages ADD COLUMN event_type TEXT;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_deliveries ADD COLUMN event_type TEXT;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_endpoints ADD COLUMN event_types TEXT;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_endpoints ADD COLUMN subscriber_id BIGINT REFERENCES webhook_subscribers (id) ON DELETE CASCADE;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_endpoints ADD COLUMN verified_at BIGINT;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_messages ADD COLUMN subscriber_id BIGINT;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_messages ADD COLUMN ordering_key TEXT;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_deliveries ADD COLUMN ordering_key TEXT;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_endpoints ADD COLUMN rate_limit INTEGER;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_endpoints ADD COLUMN rate_tokens DOUBLE PRECISION;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_endpoints ADD COLUMN rate_at BIGINT;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_endpoints ADD COLUMN timeouts INTEGER NOT NULL DEFAULT 0;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_endpoints ADD COLUMN slow_until BIGINT;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_endpoints ADD COLUMN rate_next_at DOUBLE PRECISION;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_endpoints ADD COLUMN signature_headers TEXT;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_endpoints ADD COLUMN headers TEXT;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_endpoints ADD COLUMN filter TEXT;

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

ALTER TABLE webhook_endpoints ADD COLUMN filtered_count BIGINT NOT NULL DEFAULT 0;

CREATE INDEX IF NOT EXISTS webhook_messages_created_at ON webhook_messages (created_at);

CREATE INDEX IF NOT EXISTS webhook_endpoints_url ON webhook_endpoints (url);

CREATE INDEX IF NOT EXISTS webhook_endpoints_filtered ON webhook_endpoints (id) WHERE filter IS NOT NULL;

CREATE UNIQUE INDEX IF NOT EXISTS webhook_deliveries_message_endpoint ON webhook_deliveries (message_id, endpoint_id);

CREATE INDEX IF NOT EXISTS webhook_deliveries_pending_due ON webhook_deliveries (endpoint_id, next_attempt_at, id)
  WHERE status = 'pending';

CREATE INDEX IF NOT EXISTS webhook_deliveries_endpoint_message ON webhook_deliveries (endpoint_id, message_id);

CREATE INDEX IF NOT EXISTS webhook_deliveries_finished_at ON webhook_deliveries (updated_at)
  WHERE status IN ('delivered', 'failed');

CREATE INDEX IF NOT EXISTS webhook_deliveries_ordering ON webhook_deliveries (endpoint_id, ordering_key, id)
  WHERE ordering_key IS NOT NULL AND status = 'pending';

DROP INDEX IF EXISTS webhook_deliveries_endpoint_due;

DROP INDEX IF EXISTS webhook_deliveries_message;

DROP INDEX IF EXISTS webhook_deliveries_finished;

ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_webhook_id_endpoint_id_key;

CREATE INDEX IF NOT EXISTS webhook_attempts_started ON webhook_attempts USING brin (started_at) WITH (autosummarize = on);

ALTER TABLE webhook_attempts DROP CONSTRAINT IF EXISTS webhook_attempts_delivery_id_fkey;

CREATE INDEX IF NOT EXISTS webhook_exclusions_message ON webhook_exclusions (message_id);

SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass($1::text)
            AND attname = $2::text AND NOT attisdropped;

DELETE FROM webhook_schema;

INSERT INTO webhook_schema (version) VALUES ($1);
