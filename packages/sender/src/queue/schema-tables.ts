/** How a database spells the two column types the schemas write differently. */
export interface SchemaTypes {
  /** A table's own id: `INTEGER PRIMARY KEY AUTOINCREMENT` or `BIGSERIAL PRIMARY KEY`. */
  readonly id: string;
  /** A version-1 column holding another table's id or a time in Unix ms: `INTEGER` or `BIGINT`. */
  readonly long: "INTEGER" | "BIGINT";
}

/**
 * The tables and indexes both databases create alike, for `SQLITE_SCHEMA` and `POSTGRES_SCHEMA` to put
 * in their order beside their own. Columns added since version 1 come last, as an upgraded database has
 * them (`migrateSchema`). `deliveries` ends without its semicolon: PostgreSQL adds its storage options.
 */
export function schemaTables({ id, long }: SchemaTypes) {
  return {
    messages: `CREATE TABLE IF NOT EXISTS webhook_messages (
  id ${id},
  webhook_id TEXT NOT NULL UNIQUE,
  idempotency_key TEXT UNIQUE,
  payload TEXT NOT NULL,
  created_at ${long} NOT NULL,
  traceparent TEXT,
  event_type TEXT,
  subscriber_id BIGINT,
  ordering_key TEXT
);
CREATE INDEX IF NOT EXISTS webhook_messages_created_at ON webhook_messages (created_at);`,
    subscribers: `CREATE TABLE IF NOT EXISTS webhook_subscribers (
  id ${id},
  name TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  created_at ${long} NOT NULL
);`,
    endpoints: `CREATE TABLE IF NOT EXISTS webhook_endpoints (
  id ${id},
  url TEXT NOT NULL,
  token TEXT NOT NULL,
  secrets TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  disabled_reason TEXT,
  failing_since ${long},
  last_failure_at ${long},
  created_at ${long} NOT NULL,
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
CREATE INDEX IF NOT EXISTS webhook_endpoints_filtered ON webhook_endpoints (id) WHERE filter IS NOT NULL;`,
    deliveries: `CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id ${id},
  message_id ${long} NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
  endpoint_id ${long} NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  webhook_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempt_count INTEGER NOT NULL DEFAULT 0,
  round_attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at ${long} NOT NULL,
  lease_owner TEXT,
  lease_until ${long},
  last_status INTEGER,
  last_error TEXT,
  created_at ${long} NOT NULL,
  updated_at ${long} NOT NULL,
  event_type TEXT,
  ordering_key TEXT
)`,
    // One delivery per message and endpoint; it also serves the message's cascade.
    oneDeliveryPerEndpoint: `CREATE UNIQUE INDEX IF NOT EXISTS webhook_deliveries_message_endpoint ON webhook_deliveries (message_id, endpoint_id);`,
    pendingDue: `-- The endpoints that have pending work, found by skipping from one to the next: a claim costs what is
-- pending, not how many endpoints exist.
CREATE INDEX IF NOT EXISTS webhook_deliveries_pending_due ON webhook_deliveries (endpoint_id, next_attempt_at, id)
  WHERE status = 'pending';`,
    ordering: `-- What a claim asks of a keyed delivery, "is one queued before it with its key still pending?", answered
-- from the pending keyed rows only (unkeyed and finished rows are not in it).
CREATE INDEX IF NOT EXISTS webhook_deliveries_ordering ON webhook_deliveries (endpoint_id, ordering_key, id)
  WHERE ordering_key IS NOT NULL AND status = 'pending';`,
    endpointMessage: `-- An endpoint's deliveries in message order: its events, page by page from a cursor (listEvents), each
-- page one range of this index instead of every row of the endpoint sorted again.
CREATE INDEX IF NOT EXISTS webhook_deliveries_endpoint_message ON webhook_deliveries (endpoint_id, message_id);`,
    exclusions: `-- Which messages an endpoint's filter excluded (one row per message and endpoint, written by the enqueue
-- that decided it): listed per endpoint in message order by its key, gone with the message (retention,
-- removal) or the endpoint by their cascades, the message's found by the second index.
CREATE TABLE IF NOT EXISTS webhook_exclusions (
  endpoint_id ${long} NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  message_id ${long} NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
  PRIMARY KEY (endpoint_id, message_id)
);
CREATE INDEX IF NOT EXISTS webhook_exclusions_message ON webhook_exclusions (message_id);`,
    version: "CREATE TABLE IF NOT EXISTS webhook_schema (version INTEGER NOT NULL);",
  };
}
