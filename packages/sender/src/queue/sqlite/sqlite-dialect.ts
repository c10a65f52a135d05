import type { ClaimPlan } from "../claim-plan.js";
import { CLAIMED_COLUMNS } from "../claimed-columns.js";
import type { Dialect } from "../dialect.js";
import { ADDRESSED_TO_ENDPOINT, ENDPOINT_RECEIVES } from "../endpoint-receives.js";
import { headOfItsKey } from "../head-of-its-key.js";
import { messageTable } from "../message-table.js";
import type { InsertedMessage } from "../message-to-insert.js";
import { count, type Operation, row, rows, wake } from "../operation.js";
import { availableTokens } from "../rate-bucket.js";
import type { ClaimedRow } from "../rows.js";
import { param, raw, type Sql, sql } from "../sql.js";
import { SQLITE_SCHEMA } from "./sqlite-schema.js";

const isIn: Dialect["isIn"] = (column, values) =>
  sql`${column} IN (SELECT value FROM json_each(${param(values)}))`;

/**
 * SQLite: `?` placeholders, JSON text for lists and row sets (`json_each`), no row locks (a write
 * transaction, `BEGIN IMMEDIATE`, holds the whole file), and the hot paths as several statements: SQLite
 * has no data-modifying CTEs, and its statements cost no round trip.
 */
/** Which endpoints a claim statement takes from, and how many at most from each and in all. */
interface ClaimRange {
  exclude?: readonly number[];
  only?: number;
  perEndpoint: number;
  limit: number;
}

/**
 * Leases due deliveries as `claim` asks, within `range`: walks the (endpoint_id, status,
 * next_attempt_at) index once per active endpoint and stops after `perEndpoint` rows, so a claim costs
 * O(endpoints × perEndpoint) however large the backlog is.
 */
function* claimFrom(now: Sql, claim: ClaimPlan, range: ClaimRange): Operation<Array<{ id: number }>> {
  const scope =
    range.only === undefined
      ? sql`NOT (${isIn(raw("e.id"), range.exclude ?? [], "bigint")})`
      : sql`e.id = ${range.only}`;
  return yield* rows<{ id: number }>(
    sql`UPDATE webhook_deliveries SET lease_owner = ${claim.workerId}, lease_until = ${now} + ${claim.leaseMs}
          WHERE id IN (
            SELECT d.id FROM webhook_endpoints e JOIN webhook_deliveries d ON d.id IN (
              SELECT x.id FROM webhook_deliveries x
              WHERE x.endpoint_id = e.id AND x.status = 'pending' AND x.next_attempt_at <= ${now}
                AND (x.lease_until IS NULL OR x.lease_until <= ${now})
                AND NOT (${isIn(raw("x.id"), claim.skipDeliveryIds, "bigint")}) AND ${HEAD_OF_ITS_KEY}
              ORDER BY x.next_attempt_at, x.id LIMIT ${range.perEndpoint})
            WHERE e.status = 'active' AND ${ENDPOINT_RECEIVES}
              AND ${scope}
            ORDER BY d.next_attempt_at, d.id LIMIT ${range.limit})
          RETURNING id`,
  );
}

const HEAD_OF_ITS_KEY = headOfItsKey("x");

export const sqliteDialect: Dialect = {
  name: "sqlite",
  placeholder: () => "?",
  bind: (bound) => (Array.isArray(bound.value) ? JSON.stringify(bound.value) : bound.value),
  isIn,
  table(alias, columns, rows) {
    const picked = columns.map(([name], index) => `json_extract(value, '$[${index}]') AS ${name}`).join(", ");
    return sql`(SELECT ${raw(picked)}, key + 1 AS n FROM json_each(${JSON.stringify(rows)})) AS ${raw(alias)}`;
  },
  least: (a, b) => sql`min(${a}, ${b})`,
  subscribes: (types, type) =>
    sql`(${types} IS NULL OR EXISTS (SELECT 1 FROM json_each(${types}) AS t WHERE t.value = ${type}
      OR (substr(t.value, -1) = '*' AND substr(${type}, 1, length(t.value) - 1) = substr(t.value, 1, length(t.value) - 1))))`,
  forUpdate: raw(""),
  skipLocked: raw(""),
  *lock() {},
  *hasColumn(table, column) {
    const found = yield* row(sql`SELECT 1 AS found FROM pragma_table_info(${table}) WHERE name = ${column}`);
    return found !== undefined;
  },
  *createSchema() {
    for (const statement of SQLITE_SCHEMA.split(/;\s*$/m).map((text) => text.trim()))
      if (statement !== "") yield* count(raw(statement));
  },
  // AUTOINCREMENT already continues after the largest id inserted.
  *continueIds() {},
  // One message (the common case, and every enqueueSync) as plain VALUES; several through json_each.
  *insertMessages(ctx, messages) {
    const [only] = messages;
    if (messages.length === 1 && only !== undefined) {
      const inserted = yield* row<{ id: number }>(
        sql`INSERT INTO webhook_messages (webhook_id, event_type, idempotency_key, payload, created_at, traceparent, subscriber_id, ordering_key)
            VALUES (${only.webhookId}, ${only.eventType}, ${only.idempotencyKey}, ${only.payload}, ${ctx.now}, ${only.traceparent}, ${only.subscriberId}, ${only.orderingKey})
            ON CONFLICT DO NOTHING RETURNING id`,
      );
      if (inserted === undefined) return [];
      // The subscription test, ENDPOINT_RECEIVES and ADDRESSED_TO_ENDPOINT written out (not spliced in),
      // so the statement's text is rendered once.
      const deliveries = yield* count(
        sql`INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, event_type, ordering_key, status, next_attempt_at, created_at, updated_at)
            SELECT m.id, e.id, m.webhook_id, m.event_type, m.ordering_key, 'pending', m.created_at, m.created_at, m.created_at
            FROM webhook_messages m CROSS JOIN webhook_endpoints e
            WHERE m.id = ${inserted.id} AND e.status = 'active'
              AND (e.subscriber_id IS NULL OR e.verified_at IS NOT NULL)
              AND (((m.subscriber_id IS NULL AND (e.subscriber_id IS NULL OR (m.event_type IS NULL OR m.event_type NOT IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed')))) OR m.subscriber_id = e.subscriber_id) AND (e.event_types IS NOT NULL OR (m.event_type IS NULL OR m.event_type NOT IN ('endpoint.failing', 'endpoint.disabled', 'endpoint.recovered', 'delivery.failed'))))
              AND (e.event_types IS NULL OR EXISTS (SELECT 1 FROM json_each(e.event_types) AS t WHERE t.value = m.event_type
                OR (substr(t.value, -1) = '*' AND substr(m.event_type, 1, length(t.value) - 1) = substr(t.value, 1, length(t.value) - 1))))
            ORDER BY e.id`,
      );
      if (deliveries > 0) yield* wake();
      return [{ id: inserted.id, webhook_id: only.webhookId, deliveries }];
    }
    const inserted = yield* rows<{ id: number; webhook_id: string }>(
      sql`INSERT INTO webhook_messages (webhook_id, event_type, idempotency_key, payload, created_at, traceparent, subscriber_id, ordering_key)
          SELECT webhook_id, event_type, idempotency_key, payload, ${ctx.now}, traceparent, subscriber_id, ordering_key FROM ${messageTable(sqliteDialect, messages)} WHERE true ORDER BY n
          ON CONFLICT DO NOTHING RETURNING id, webhook_id`,
    );
    if (inserted.length === 0) return [];
    const deliveries = new Map<number, number>();
    for (const { message_id } of yield* rows<{ message_id: number }>(
      sql`INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, event_type, ordering_key, status, next_attempt_at, created_at, updated_at)
          SELECT m.id, e.id, m.webhook_id, m.event_type, m.ordering_key, 'pending', m.created_at, m.created_at, m.created_at
          FROM webhook_messages m CROSS JOIN webhook_endpoints e
          WHERE ${isIn(
            raw("m.id"),
            inserted.map((message) => message.id),
            "bigint",
          )} AND e.status = 'active' AND ${ENDPOINT_RECEIVES} AND ${ADDRESSED_TO_ENDPOINT}
            AND ${sqliteDialect.subscribes(raw("e.event_types"), raw("m.event_type"))}
          ORDER BY m.id, e.id RETURNING message_id`,
    ))
      deliveries.set(message_id, (deliveries.get(message_id) ?? 0) + 1);
    if (deliveries.size > 0) yield* wake();
    return inserted.map(
      (message): InsertedMessage => ({ ...message, deliveries: deliveries.get(message.id) ?? 0 }),
    );
  },
  *writeAndClaim(ctx, writes, claim) {
    const counts: number[] = [];
    for (const write of writes) counts.push(yield* count(write));
    if (claim === undefined) return { counts, claimed: [] };
    const { now } = ctx;
    // Rate-limited endpoints are claimed for one by one, each within what its bucket holds (SQLite has
    // no LIMIT that depends on the row); the write transaction holds the file, so no other claim spends
    // a bucket meanwhile.
    const limited = (yield* rows<{ id: number; available: number }>(
      sql`SELECT e.id, ${availableTokens(sqliteDialect, now)} AS available FROM webhook_endpoints e
          WHERE e.rate_limit IS NOT NULL AND e.status = 'active'`,
    )).filter((endpoint) => !claim.excludeEndpointIds.includes(endpoint.id));
    const leased = yield* claimFrom(now, claim, {
      exclude: [...claim.excludeEndpointIds, ...limited.map((endpoint) => endpoint.id)],
      perEndpoint: claim.perEndpoint,
      limit: claim.limit,
    });
    for (const endpoint of limited) {
      // One this transaction wrote is left to the next claim, as on PostgreSQL.
      if (claim.keepBucketsOf.includes(endpoint.id)) continue;
      const allowed = Math.min(
        claim.perEndpoint,
        Math.floor(endpoint.available),
        claim.limit - leased.length,
      );
      const taken =
        allowed > 0
          ? yield* claimFrom(now, claim, { only: endpoint.id, perEndpoint: allowed, limit: allowed })
          : [];
      leased.push(...taken);
      yield* count(
        sql`UPDATE webhook_endpoints SET rate_tokens = ${endpoint.available - taken.length}, rate_at = ${now}
            WHERE id = ${endpoint.id}`,
      );
    }
    if (leased.length === 0) return { counts, claimed: [] };
    const claimed = yield* rows<ClaimedRow>(
      sql`SELECT ${CLAIMED_COLUMNS} FROM webhook_deliveries d
          JOIN webhook_messages m ON m.id = d.message_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
          WHERE ${isIn(
            raw("d.id"),
            leased.map((delivery) => delivery.id),
            "bigint",
          )}`,
    );
    return { counts, claimed };
  },
};
