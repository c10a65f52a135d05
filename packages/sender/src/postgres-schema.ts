/** The PostgreSQL outbox schema; times are Unix milliseconds (BIGINT). Idempotent. */
export const POSTGRES_SCHEMA = `
CREATE TABLE IF NOT EXISTS plants (
  id BIGSERIAL PRIMARY KEY,
  name TEXT NOT NULL,
  tag TEXT,
  webhook_id TEXT NOT NULL UNIQUE,
  body TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS plants_created_at ON plants (created_at);
CREATE TABLE IF NOT EXISTS endpoints (
  id BIGSERIAL PRIMARY KEY,
  url TEXT NOT NULL,
  token TEXT NOT NULL,
  secrets TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  disabled_reason TEXT,
  failing_since BIGINT,
  last_failure_at BIGINT,
  created_at BIGINT NOT NULL
);
ALTER TABLE endpoints ADD COLUMN IF NOT EXISTS last_failure_at BIGINT;
CREATE TABLE IF NOT EXISTS deliveries (
  id BIGSERIAL PRIMARY KEY,
  plant_id BIGINT NOT NULL REFERENCES plants (id) ON DELETE CASCADE,
  endpoint_id BIGINT NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
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
  UNIQUE (webhook_id, endpoint_id)
);
CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (status, next_attempt_at);
CREATE INDEX IF NOT EXISTS deliveries_endpoint ON deliveries (endpoint_id);
CREATE INDEX IF NOT EXISTS deliveries_endpoint_due ON deliveries (endpoint_id, status, next_attempt_at, id);
CREATE TABLE IF NOT EXISTS attempts (
  id BIGSERIAL PRIMARY KEY,
  delivery_id BIGINT NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  worker_id TEXT NOT NULL,
  started_at BIGINT NOT NULL,
  duration_ms INTEGER NOT NULL,
  status INTEGER,
  error TEXT,
  response_body TEXT NOT NULL,
  outcome TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_delivery ON attempts (delivery_id);
`;

/** Every table and index `POSTGRES_SCHEMA` creates: when all exist (with the columns below), start-up runs no DDL at all. */
export const POSTGRES_SCHEMA_OBJECTS = [
  ...POSTGRES_SCHEMA.matchAll(/(?:TABLE|INDEX) IF NOT EXISTS (\w+)/g),
].map((match) => match[1] as string);

/** Columns `POSTGRES_SCHEMA` adds to tables of an older release, as `table.column`. */
export const POSTGRES_SCHEMA_COLUMNS = [
  ...POSTGRES_SCHEMA.matchAll(/ALTER TABLE (\w+) ADD COLUMN IF NOT EXISTS (\w+)/g),
].map((match) => `${match[1]}.${match[2]}`);
