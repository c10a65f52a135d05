import { LEGACY_OUTBOX_COPY } from "../legacy-outbox-copy.js";
import { count, type Operation, row } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { raw, sql } from "../sql.js";

/**
 * The schema's version, stored in `webhook_schema`. A database at this version is only looked at on
 * open, never locked or altered: DDL takes locks (even `CREATE INDEX IF NOT EXISTS` takes a SHARE lock on
 * PostgreSQL) that a running process recording an attempt would deadlock against.
 * 1: the shared schema (one unique key per message and endpoint on both databases, endpoints by URL).
 * 2: event types: a message's (copied to its deliveries) and the ones an endpoint subscribes to.
 * 3: subscribers (`webhook_subscribers`): an endpoint's owner and verification, a message's addressee.
 * 4: delivery control: ordering keys (a message's, copied to its deliveries, and the index the claims
 *    test them with) and an endpoint's rate limit with its token bucket.
 * 5: fair claims: an endpoint's run of timeouts and its slow lane (`timeouts`, `slow_until`), its rate
 *    limit's schedule (`rate_next_at`), and the pending rows' index on SQLite (a claim walks only the
 *    endpoints that have pending work).
 * 6: an endpoint's deliveries in message order (`webhook_deliveries_endpoint_message`): its events,
 *    listed page by page (`listEvents`).
 * 7: subscriptions that fit: an endpoint's signature header names (`signature_headers`), static
 *    headers (`headers`, sealed like its secrets), filter (`filter`, with the messages it excluded,
 *    `filtered_count`, and the index every enqueue finds the filtered endpoints by).
 * 8: which messages a filter excluded (`webhook_exclusions`, a table of its own: no table is rebuilt).
 */
export const SCHEMA_VERSION = 8;

/**
 * Columns added since the first schema, each added to a database that lacks it. The schema files
 * (`SQLITE_SCHEMA`, `POSTGRES_SCHEMA`) hold them too, last in their tables, so a new database is made as an
 * upgraded one is.
 */
const ADDED_COLUMNS: ReadonlyArray<readonly [table: string, column: string, type: string]> = [
  // 0.3: messages queued before carry no trace context (NULL).
  ["webhook_messages", "traceparent", "TEXT"],
  // 2: messages queued before have no type (NULL), and endpoints made before take every message (NULL).
  ["webhook_messages", "event_type", "TEXT"],
  ["webhook_deliveries", "event_type", "TEXT"],
  ["webhook_endpoints", "event_types", "TEXT"],
  // 3: endpoints made before belong to the operator (NULL), who needs no verification of its own; a
  // subscriber's goes with it (the outbox deletes their attempts first, as removeEndpoint does). Messages
  // queued before went to everyone (NULL). A message's addressee has no foreign key: its check would lock
  // the subscriber's row on every enqueue to it, and removeSubscriber deletes those messages itself.
  ["webhook_endpoints", "subscriber_id", "BIGINT REFERENCES webhook_subscribers (id) ON DELETE CASCADE"],
  ["webhook_endpoints", "verified_at", "BIGINT"],
  ["webhook_messages", "subscriber_id", "BIGINT"],
  // 4: messages and deliveries queued before have no key (NULL): attempted in any order, as they were.
  ["webhook_messages", "ordering_key", "TEXT"],
  ["webhook_deliveries", "ordering_key", "TEXT"],
  // 4: endpoints made before have no limit (NULL); the bucket starts full (NULL tokens).
  ["webhook_endpoints", "rate_limit", "INTEGER"],
  ["webhook_endpoints", "rate_tokens", "DOUBLE PRECISION"],
  ["webhook_endpoints", "rate_at", "BIGINT"],
  // 5: endpoints made before have timed out no attempt in a row (0), are in no slow lane (NULL) and may
  // start a rate-limited delivery at once (NULL).
  ["webhook_endpoints", "timeouts", "INTEGER NOT NULL DEFAULT 0"],
  ["webhook_endpoints", "slow_until", "BIGINT"],
  ["webhook_endpoints", "rate_next_at", "DOUBLE PRECISION"],
  // 7: endpoints made before sign under the standard names (NULL) and send no static headers (NULL).
  ["webhook_endpoints", "signature_headers", "TEXT"],
  ["webhook_endpoints", "headers", "TEXT"],
  // 7: endpoints made before have no filter (NULL) and have excluded nothing (0).
  ["webhook_endpoints", "filter", "TEXT"],
  ["webhook_endpoints", "filtered_count", "BIGINT NOT NULL DEFAULT 0"],
];

/** The schema's statements, each with the comment lines above it left out. */
const statementsOf = (schema: string) =>
  schema
    .split(/;\s*$/m)
    .map((text) => text.replace(/^\s*(--[^\n]*\n\s*)*/, "").trim())
    .filter((text) => text !== "");

/** Serialises schema upgrades when several processes open one database at once. */
export const SCHEMA_LOCK = 0x706c616e;

/** The version the database is at; 0 for a database made before versions were kept (or an empty one). */
export function* schemaVersion(ctx: QueueContext): Operation<number> {
  if (!(yield* ctx.store.hasColumn("webhook_schema", "version"))) return 0;
  const found = yield* row<{ version: number | string }>(
    sql`SELECT max(version) AS version FROM webhook_schema`,
  );
  return Number(found?.version ?? 0);
}

/**
 * Brings any earlier database to the current schema, keeping every row and id: the tables and indexes
 * that are missing, columns added since (0.3's `traceparent`), and a 0.1 outbox's own tables moved into
 * the `webhook_` ones. Each step is safe to run again, so a crash half-way is finished by the next open.
 */
export function* migrateSchema(ctx: QueueContext): Operation<void> {
  const { dialect, store } = ctx;
  if ((yield* schemaVersion(ctx)) >= SCHEMA_VERSION) return;
  yield* dialect.lock(SCHEMA_LOCK);
  if ((yield* schemaVersion(ctx)) >= SCHEMA_VERSION) return;
  // The tables that are missing, made as they are now; then the columns an older table lacks; then the
  // indexes (some are on added columns) and the rest.
  const statements = statementsOf(store.schema);
  const isTable = (statement: string) => statement.startsWith("CREATE TABLE");
  for (const statement of statements.filter(isTable)) yield* count(raw(statement));
  for (const [table, column, type] of ADDED_COLUMNS)
    if (!(yield* store.hasColumn(table, column)))
      yield* count(raw(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`));
  for (const statement of statements.filter((statement) => !isTable(statement))) yield* count(raw(statement));
  if (yield* store.hasColumn("deliveries", "plant_id")) {
    // The oldest 0.1 databases lack it.
    if (!(yield* store.hasColumn("endpoints", "last_failure_at")))
      yield* count(sql`ALTER TABLE endpoints ADD COLUMN last_failure_at BIGINT`);
    for (const statement of LEGACY_OUTBOX_COPY) yield* count(raw(statement));
    yield* store.continueIds([
      "webhook_messages",
      "webhook_endpoints",
      "webhook_deliveries",
      "webhook_attempts",
    ]);
  }
  yield* count(sql`DELETE FROM webhook_schema`);
  yield* count(sql`INSERT INTO webhook_schema (version) VALUES (${SCHEMA_VERSION})`);
}
