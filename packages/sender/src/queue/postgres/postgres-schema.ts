import { schemaTables } from "../schema-tables.js";

const tables = schemaTables({ id: "BIGSERIAL PRIMARY KEY", long: "BIGINT" });

/**
 * The PostgreSQL outbox schema, current version; times are Unix milliseconds (BIGINT). Idempotent. Every
 * table carries the `webhook_` prefix, so the queue can live in the caller's own database beside tables of
 * its own. The tables both databases create alike are `schemaTables`; a new database has the same tables,
 * columns and indexes as an upgraded one (a test compares them).
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
${tables.messages}
${tables.subscribers}
${tables.endpoints}
${tables.deliveries} WITH (fillfactor = 70);
${tables.oneDeliveryPerEndpoint}
${tables.pendingDue}
${tables.endpointMessage}
CREATE INDEX IF NOT EXISTS webhook_deliveries_finished_at ON webhook_deliveries (updated_at)
  WHERE status IN ('delivered', 'failed');
${tables.ordering}
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
${tables.exclusions}
${tables.version}
`;
