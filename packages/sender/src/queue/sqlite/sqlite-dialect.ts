import {
  claimAllowance,
  RATE_SPACING_MS,
  rateFrom,
  SLOW_LANE_AFTER,
  writesOnClaim,
} from "../claim-allowance.js";
import type { ClaimPlan } from "../claim-plan.js";
import { type ClaimCandidate, takeTurns } from "../claim-turns.js";
import { CLAIMED_COLUMNS } from "../claimed-columns.js";
import type { Dialect } from "../dialect.js";
import { ADDRESSED_TO_ENDPOINT, ENDPOINT_RECEIVES } from "../endpoint-receives.js";
import { headOfItsKey } from "../head-of-its-key.js";
import { messageTable } from "../message-table.js";
import type { InsertedMessage } from "../message-to-insert.js";
import { count, type Operation, row, rows, wake } from "../operation.js";
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
/** An endpoint with pending work that a claim may take work for, as its row stands. */
interface OpenEndpoint {
  id: number;
  owner: number;
  rate_limit: number | null;
  rate_next_at: number | null;
  timeouts: number;
  slow_until: number | null;
  now_ms: number;
}

/**
 * The endpoints that have pending work and may be claimed for: found by skipping along the pending rows'
 * index from one endpoint to the next, so an endpoint with nothing pending (idle, not verified) costs a
 * claim nothing. CROSS JOIN keeps that order (SQLite's planner otherwise scanned every endpoint and
 * looked each up in `pending`: 3,000 idle endpoints made an idle claim 4 times as costly).
 */
function* openEndpoints(now: Sql, claim: ClaimPlan): Operation<OpenEndpoint[]> {
  return yield* rows<OpenEndpoint>(
    sql`WITH RECURSIVE pending (id) AS (
          SELECT (SELECT endpoint_id FROM webhook_deliveries INDEXED BY webhook_deliveries_pending_due
            WHERE status = 'pending' ORDER BY endpoint_id LIMIT 1)
          UNION ALL
          SELECT (SELECT x.endpoint_id FROM webhook_deliveries x INDEXED BY webhook_deliveries_pending_due
            WHERE x.status = 'pending' AND x.endpoint_id > p.id ORDER BY x.endpoint_id LIMIT 1)
          FROM pending p WHERE p.id IS NOT NULL)
        SELECT e.id, COALESCE(e.subscriber_id, 0) AS owner, e.rate_limit, e.rate_next_at, e.timeouts, e.slow_until,
          ${now} AS now_ms
        FROM pending p CROSS JOIN webhook_endpoints e ON e.id = p.id
        WHERE e.status = 'active' AND ${ENDPOINT_RECEIVES}
          AND NOT (${isIn(raw("e.id"), claim.excludeEndpointIds, "bigint")})
          AND NOT (${isIn(raw("COALESCE(e.subscriber_id, 0)"), claim.excludeOwners, "bigint")})`,
  );
}

/**
 * Each of `endpointIds`' earliest due deliveries, at most `perEndpoint` of each: walks the pending rows'
 * index once per endpoint and stops after `perEndpoint` rows, so the cost follows what is due, not the
 * backlog.
 */
function* dueOf(
  now: Sql,
  claim: ClaimPlan,
  endpointIds: readonly number[],
  perEndpoint: number,
): Operation<Array<{ id: number; endpoint_id: number; next_attempt_at: number }>> {
  return yield* rows(
    sql`SELECT d.id, d.endpoint_id, d.next_attempt_at FROM json_each(${param(endpointIds)}) j
          JOIN webhook_deliveries d ON d.id IN (
            SELECT x.id FROM webhook_deliveries x
            WHERE x.endpoint_id = j.value AND x.status = 'pending' AND x.next_attempt_at <= ${now}
              AND (x.lease_until IS NULL OR x.lease_until <= ${now})
              AND NOT (${isIn(raw("x.id"), claim.skipDeliveryIds, "bigint")}) AND ${HEAD_OF_ITS_KEY}
            ORDER BY x.next_attempt_at, x.id LIMIT ${perEndpoint})
        ORDER BY d.endpoint_id, d.next_attempt_at, d.id`,
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
    // The write transaction holds the file: no other claim reads or spends an endpoint's schedule meanwhile.
    const open = (yield* openEndpoints(now, claim)).map((row) => ({
      id: Number(row.id),
      owner: Number(row.owner),
      timeouts: Number(row.timeouts),
      slowUntil: row.slow_until === null ? null : Number(row.slow_until),
      rateLimit: row.rate_limit === null ? null : Number(row.rate_limit),
      rateNextAt: row.rate_next_at === null ? null : Number(row.rate_next_at),
      nowMs: Number(row.now_ms),
    }));
    // Endpoints by how many of their deliveries this claim may take: one statement for each count.
    const byAllowance = new Map<number, number[]>();
    for (const endpoint of open) {
      // One this transaction wrote is left to the next claim, as on PostgreSQL.
      if (writesOnClaim(endpoint) && claim.keepBucketsOf.includes(endpoint.id)) continue;
      const allowance = claimAllowance(endpoint, endpoint.nowMs, claim.perEndpoint);
      if (allowance > 0) byAllowance.set(allowance, [...(byAllowance.get(allowance) ?? []), endpoint.id]);
    }
    const owners = new Map(open.map((endpoint) => [endpoint.id, endpoint]));
    const candidates: ClaimCandidate[] = [];
    for (const [allowance, endpointIds] of byAllowance) {
      let place = 0;
      let last = -1;
      for (const due of yield* dueOf(now, claim, endpointIds, allowance)) {
        place = Number(due.endpoint_id) === last ? place + 1 : 1;
        last = Number(due.endpoint_id);
        candidates.push({
          id: Number(due.id),
          owner: owners.get(last)?.owner ?? 0,
          place,
          nextAttemptAt: Number(due.next_attempt_at),
        });
      }
    }
    const chosen = takeTurns(candidates, claim.perOwner, claim.limit);
    const leased =
      chosen.length === 0
        ? []
        : yield* rows<{ id: number; endpoint_id: number; next_attempt_at: number }>(
            sql`UPDATE webhook_deliveries SET lease_owner = ${claim.workerId}, lease_until = ${now} + ${claim.leaseMs}
                WHERE ${isIn(raw("id"), chosen, "bigint")} RETURNING id, endpoint_id, next_attempt_at`,
          );
    // The rows of the endpoints whose schedule or lane this claim spent, and only those.
    const startIn = new Map<number, number>();
    const taken = new Map<number, number[]>();
    for (const delivery of [...leased].sort(
      (a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at) || Number(a.id) - Number(b.id),
    ))
      taken.set(Number(delivery.endpoint_id), [
        ...(taken.get(Number(delivery.endpoint_id)) ?? []),
        Number(delivery.id),
      ]);
    for (const [endpointId, ids] of taken) {
      const endpoint = owners.get(endpointId);
      if (!endpoint || !writesOnClaim(endpoint)) continue;
      const from = rateFrom(endpoint, endpoint.nowMs);
      const spacing = endpoint.rateLimit === null ? 0 : RATE_SPACING_MS / endpoint.rateLimit;
      if (endpoint.rateLimit !== null)
        ids.forEach((id, index) => {
          startIn.set(id, from + index * spacing - endpoint.nowMs);
        });
      yield* count(
        sql`UPDATE webhook_endpoints SET
              rate_next_at = ${endpoint.rateLimit === null ? endpoint.rateNextAt : from + ids.length * spacing},
              slow_until = ${endpoint.timeouts >= SLOW_LANE_AFTER ? sql`${now} + ${claim.leaseMs}` : endpoint.slowUntil}
            WHERE id = ${endpointId}`,
      );
    }
    if (leased.length === 0) return { counts, claimed: [] };
    const found = yield* rows<ClaimedRow>(
      sql`SELECT ${CLAIMED_COLUMNS} FROM webhook_deliveries d
          JOIN webhook_messages m ON m.id = d.message_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
          WHERE ${isIn(
            raw("d.id"),
            leased.map((delivery) => delivery.id),
            "bigint",
          )}`,
    );
    const claimed = found.map((row) => ({ ...row, start_in_ms: startIn.get(Number(row.id)) ?? null }));
    return { counts, claimed };
  },
};
