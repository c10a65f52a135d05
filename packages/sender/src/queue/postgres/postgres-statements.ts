import { OUTBOX_NOTIFY_CHANNEL } from "../../outbox.js";
import type { ClaimPlan } from "../claim-plan.js";
import { CLAIMED_COLUMNS, claimedNames } from "../claimed-columns.js";
import { ENDPOINT_RECEIVES } from "../endpoint-receives.js";
import { fanOut } from "../fan-out.js";
import { headOfItsKey } from "../head-of-its-key.js";
import { insertMessageRows } from "../insert-message-rows.js";
import { type Operation, row, rows } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { availableTokens } from "../rate-bucket.js";
import type { ClaimedRow } from "../rows.js";
import { join, param, raw, type Sql, sql } from "../sql.js";
import type { StoreStatements } from "../store-statements.js";
import { postgresDialect } from "./postgres-dialect.js";
import { POSTGRES_SCHEMA } from "./postgres-schema.js";

const HEAD_OF_ITS_KEY = headOfItsKey("d");

/** The claim's first parts: due candidates picked without locks, then locked and re-checked, and the lease. */
function claimParts(ctx: QueueContext, plan: ClaimPlan): Sql[] {
  const { now } = ctx;
  // Candidates walk the pending rows' (endpoint_id, next_attempt_at) index once per active endpoint, so the
  // cost follows what is claimed, not the backlog; the locking SELECT re-checks each row as it stands after
  // any concurrent claim committed, and skips rows another claim holds.
  return [
    // Rate-limited endpoints' rows, held for the rest of the transaction: one claim at a time spends an
    // endpoint's bucket (another worker passes over it meanwhile). Not those this transaction writes.
    sql`limited AS (
      SELECT e.id, ${availableTokens(postgresDialect, now)} AS available FROM webhook_endpoints e
      WHERE e.rate_limit IS NOT NULL AND e.status = 'active'
        AND NOT (e.id = ANY(${param(plan.keepBucketsOf, "bigint[]")}))
      FOR UPDATE SKIP LOCKED)`,
    sql`candidates AS (
      SELECT due.id FROM webhook_endpoints e LEFT JOIN limited l ON l.id = e.id CROSS JOIN LATERAL (
        SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
        WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= ${now}
          AND (d.lease_until IS NULL OR d.lease_until <= ${now})
          AND NOT (d.id = ANY(${param(plan.skipDeliveryIds, "bigint[]")})) AND ${HEAD_OF_ITS_KEY}
        ORDER BY d.next_attempt_at, d.id
        LIMIT CASE WHEN e.rate_limit IS NULL THEN ${param(plan.perEndpoint, "int")}
          ELSE LEAST(${param(plan.perEndpoint, "int")}, floor(COALESCE(l.available, 0))::int) END
      ) due
      WHERE e.status = 'active' AND ${ENDPOINT_RECEIVES} AND NOT (e.id = ANY(${param(plan.excludeEndpointIds, "bigint[]")}))
      ORDER BY due.next_attempt_at, due.id LIMIT ${param(plan.limit, "int")})`,
    sql`locked AS (
      SELECT d.id FROM webhook_deliveries d
      WHERE d.id IN (SELECT id FROM candidates) AND d.status = 'pending'
        AND (d.lease_until IS NULL OR d.lease_until <= ${now})
      FOR UPDATE SKIP LOCKED)`,
    sql`lease AS (SELECT ${param(plan.workerId, "text")} AS owner, ${now} + ${param(plan.leaseMs, "bigint")} AS until)`,
  ];
}

/** The claim's result by name, not `claimed.*`: a statement selecting `*` is never prepared. */
const CLAIMED_FROM_CTE = claimedNames("claimed");

/**
 * The claim's last parts: lease the locked rows and return them with their payload and endpoint joined
 * in (`claimed`), then leave in each rate-limited endpoint's bucket what this claim did not spend.
 */
function claimWrites(now: Sql): Sql[] {
  return [
    sql`claimed AS (UPDATE webhook_deliveries d SET lease_owner = lease.owner, lease_until = lease.until
      FROM locked, lease, webhook_messages m, webhook_endpoints e
      WHERE d.id = locked.id AND m.id = d.message_id AND e.id = d.endpoint_id
      RETURNING ${CLAIMED_COLUMNS})`,
    sql`spent AS (UPDATE webhook_endpoints e SET rate_tokens = l.available - COALESCE(c.n, 0), rate_at = ${now}
      FROM limited l LEFT JOIN (SELECT endpoint_id, count(*) AS n FROM claimed GROUP BY endpoint_id) c
        ON c.endpoint_id = l.id
      WHERE e.id = l.id)`,
  ];
}

/**
 * PostgreSQL's own statements: the schema's upkeep, and one statement for each hot path (a round trip
 * saved is the drain's largest cost).
 */
export const postgresStatements: StoreStatements = {
  *hasColumn(table, column) {
    const found = yield* row(
      sql`SELECT 1 AS found FROM pg_attribute WHERE attrelid = to_regclass(${param(table, "text")})
            AND attname = ${param(column, "text")} AND NOT attisdropped`,
    );
    return found !== undefined;
  },
  schema: POSTGRES_SCHEMA,
  *continueIds(tables) {
    // Rows copied with their ids: each sequence continues after the largest.
    for (const table of tables)
      yield* row(
        sql`SELECT setval(pg_get_serial_sequence(${param(table, "text")}, 'id'),
              COALESCE((SELECT max(id) FROM ${raw(table)}), 0) + 1, false)`,
      );
  },
  // The messages, one delivery per active endpoint, and a NOTIFY that PostgreSQL holds until the
  // transaction commits (the caller's, when it passed its client), in one statement.
  *insertMessages(ctx, messages) {
    return yield* rows(
      sql`WITH m AS (${insertMessageRows(postgresDialect, ctx.now, messages)}),
        d AS (${fanOut(postgresDialect, raw("m"))}),
        n AS (SELECT pg_notify(${param(OUTBOX_NOTIFY_CHANNEL, "text")}, '') FROM (SELECT 1 FROM d LIMIT 1) AS any_delivery)
        SELECT m.id, m.webhook_id, COALESCE(per.deliveries, 0)::int AS deliveries, (SELECT count(*) FROM n) AS notified
        FROM m LEFT JOIN (SELECT message_id, count(*) AS deliveries FROM d GROUP BY message_id) per ON per.message_id = m.id`,
    );
  },
  // The writes and the claim as one statement: each write a CTE of its own, the claim's parts first (a
  // statement is told apart by its start: pg_stat_activity keeps 1 kB). Every part sees the rows as they
  // were when the statement began, which is why the claim is told what the writes recorded and disabled.
  *writeAndClaim(ctx, writes, claim): Operation<{ counts: number[]; claimed: ClaimedRow[] }> {
    if (writes.length === 0 && claim === undefined) return { counts: [], claimed: [] };
    if (writes.length === 0 && claim !== undefined)
      return {
        counts: [],
        claimed: yield* rows<ClaimedRow>(
          sql`WITH ${join([...claimParts(ctx, claim), ...claimWrites(ctx.now)], ",\n")}\nSELECT ${CLAIMED_FROM_CTE} FROM claimed`,
        ),
      };
    const parts = writes.map((write, index) => sql`${raw(`w${index}`)} AS (${write} RETURNING 1)`);
    const counted = writes.map((_, index) => raw(`(SELECT count(*) FROM w${index})::int AS w${index}`));
    const statement =
      claim === undefined
        ? sql`WITH ${join(parts, ",\n")}\nSELECT ${join(counted, ", ")}`
        : sql`WITH ${join([...claimParts(ctx, claim), ...parts, ...claimWrites(ctx.now)], ",\n")}
              SELECT ${join(counted, ", ")}, ${CLAIMED_FROM_CTE} FROM (SELECT 1) AS one LEFT JOIN claimed ON true`;
    const found = yield* rows<ClaimedRow & Record<string, number>>(statement);
    const first = found[0];
    return {
      counts: writes.map((_, index) => Number(first?.[`w${index}`] ?? 0)),
      claimed: found.filter((claimed) => claimed.id !== null && claimed.id !== undefined),
    };
  },
};
