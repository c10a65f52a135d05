import {
  claimAllowance,
  RATE_SPACING_MS,
  rateFrom,
  SLOW_LANE_AFTER,
  writesOnClaim,
} from "../claim-allowance.js";
import type { ClaimPlan } from "../claim-plan.js";
import { type ClaimCandidate, takeTurns } from "../claim-turns.js";
import { claimableDelivery, claimableEndpoint } from "../claimable.js";
import { CLAIMED_COLUMNS } from "../claimed-columns.js";
import { fanOut } from "../fan-out.js";
import { insertMessageRows } from "../insert-message-rows.js";
import type { InsertedMessage } from "../message-to-insert.js";
import { count, type Operation, row, rows, wake } from "../operation.js";
import type { StoreStatements } from "../queue-context.js";
import type { ClaimedRow } from "../rows.js";
import { param, raw, type Sql, type SqlValue, sql } from "../sql.js";
import { sqliteDialect } from "./sqlite-dialect.js";
import { SQLITE_SCHEMA } from "./sqlite-schema.js";

const { isIn } = sqliteDialect;

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
        WHERE ${claimableEndpoint(sqliteDialect, claim)}`,
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
            WHERE x.endpoint_id = j.value AND ${claimableDelivery(sqliteDialect, "x", now, claim)}
            ORDER BY x.next_attempt_at, x.id LIMIT ${perEndpoint})
        ORDER BY d.endpoint_id, d.next_attempt_at, d.id`,
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
      ids.length === 1 && !messages.some((message) => message.filteredOut?.length)
        ? ONE_FAN_OUT(ids)
        : fanOut(sqliteDialect, raw("webhook_messages m"), isIn(raw("m.id"), ids, "bigint"), messages),
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
