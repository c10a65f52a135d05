import type { ClaimPlan } from "../claim-plan.js";
import { CLAIMED_COLUMNS } from "../claimed-columns.js";
import { ENDPOINT_RECEIVES } from "../endpoint-receives.js";
import { fanOut } from "../fan-out.js";
import { headOfItsKey } from "../head-of-its-key.js";
import { insertMessageRows } from "../insert-message-rows.js";
import type { InsertedMessage } from "../message-to-insert.js";
import { count, type Operation, row, rows, wake } from "../operation.js";
import { availableTokens } from "../rate-bucket.js";
import type { ClaimedRow } from "../rows.js";
import { raw, type Sql, type SqlValue, sql } from "../sql.js";
import type { StoreStatements } from "../store-statements.js";
import { sqliteDialect } from "./sqlite-dialect.js";
import { SQLITE_SCHEMA } from "./sqlite-schema.js";

const { isIn } = sqliteDialect;

/** Which endpoints a claim statement takes from, and how many at most from each and in all. */
interface ClaimRange {
  exclude?: readonly number[];
  only?: number;
  perEndpoint: number;
  limit: number;
}

const HEAD_OF_ITS_KEY = headOfItsKey("x");

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

/**
 * A statement composed once, bound at each call with values in the order of its parameters: its text is
 * then rendered once, as a template's without fragments is. For one message (every `enqueueSync`):
 * composing its fan-out at each call, and inserting it through a row set rather than VALUES, cost an
 * enqueueSync 10-20% more CPU (measured against the pasted statements this replaces).
 */
function composedOnce(statement: Sql): (values: readonly unknown[]) => Sql {
  const strings = Object.freeze([...statement.strings]);
  return (values) => ({
    strings,
    params: statement.params.map((bound, index) => ({ value: values[index] as SqlValue, type: bound.type })),
  });
}
const ONE_FAN_OUT = composedOnce(
  fanOut(sqliteDialect, raw("webhook_messages m"), isIn(raw("m.id"), [0], "bigint")),
);

/**
 * SQLite's own statements: the schema's upkeep, and the hot paths as several statements (SQLite has no
 * data-modifying CTEs, and its statements cost no round trip).
 */
export const sqliteStatements: StoreStatements = {
  *hasColumn(table, column) {
    const found = yield* row(sql`SELECT 1 AS found FROM pragma_table_info(${table}) WHERE name = ${column}`);
    return found !== undefined;
  },
  schema: SQLITE_SCHEMA,
  // AUTOINCREMENT already continues after the largest id inserted.
  *continueIds() {},
  // The messages (one as plain VALUES), then their deliveries read back by id.
  *insertMessages(ctx, messages) {
    const [only] = messages;
    const inserted = yield* rows<{ id: number; webhook_id: string }>(
      only && messages.length === 1
        ? sql`INSERT INTO webhook_messages (webhook_id, event_type, idempotency_key, payload, traceparent, subscriber_id, ordering_key, created_at)
            VALUES (${only.webhookId}, ${only.eventType}, ${only.idempotencyKey}, ${only.payload}, ${only.traceparent}, ${only.subscriberId}, ${only.orderingKey}, ${ctx.now})
            ON CONFLICT DO NOTHING RETURNING id, webhook_id`
        : insertMessageRows(sqliteDialect, ctx.now, messages),
    );
    if (inserted.length === 0) return [];
    const ids = inserted.map((message) => message.id);
    const deliveries = new Map<number, number>();
    for (const { message_id } of yield* rows<{ message_id: number }>(
      ids.length === 1
        ? ONE_FAN_OUT(ids)
        : fanOut(sqliteDialect, raw("webhook_messages m"), isIn(raw("m.id"), ids, "bigint")),
    ))
      deliveries.set(message_id, (deliveries.get(message_id) ?? 0) + 1);
    if (deliveries.size > 0) yield* wake();
    return inserted.map(
      (message): InsertedMessage => ({
        id: message.id,
        webhook_id: message.webhook_id,
        deliveries: deliveries.get(message.id) ?? 0,
      }),
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
