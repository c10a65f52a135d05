import { OUTBOX_NOTIFY_CHANNEL } from "../../outbox.js";
import { RATE_HORIZON_MS, RATE_SPACING_MS, SLOW_LANE_AFTER } from "../claim-allowance.js";
import type { ClaimPlan } from "../claim-plan.js";
import { claimableDelivery, claimableEndpoint } from "../claimable.js";
import { CLAIMED_COLUMNS, claimedNames } from "../claimed-columns.js";
import { fanOut } from "../fan-out.js";
import { insertMessageRows } from "../insert-message-rows.js";
import { type Operation, row, rows } from "../operation.js";
import type { QueueContext, StoreStatements } from "../queue-context.js";
import type { ClaimedRow } from "../rows.js";
import { join, param, raw, type Sql, sql } from "../sql.js";
import { POSTGRES_NOW, postgresDialect } from "./postgres-dialect.js";
import { POSTGRES_SCHEMA } from "./postgres-schema.js";

/** The constants as SQL text (never parameters: the statement's text and plan stay the same). */
const SLOW_LANE_AFTER_SQL = raw(String(SLOW_LANE_AFTER));
const RATE_SPACING_SQL = raw(`${RATE_SPACING_MS}.0`);

/** `claimAllowance` (queue/claim-allowance.ts) in SQL, over endpoint `e`: the same formula, kept in step with it. */
function allowanceSql(now: Sql, perEndpoint: Sql): Sql {
  return sql`LEAST(
    CASE WHEN e.timeouts < ${SLOW_LANE_AFTER_SQL} THEN ${perEndpoint}
      WHEN e.slow_until IS NOT NULL AND e.slow_until > ${now} THEN 0 ELSE LEAST(${perEndpoint}, 1) END,
    CASE WHEN e.rate_limit IS NULL THEN ${perEndpoint}
      ELSE GREATEST(0, ceil((${now} + ${raw(String(RATE_HORIZON_MS))} - ${rateFromSql(now)}) * e.rate_limit / ${RATE_SPACING_SQL}))::int END)`;
}

/** `rateFrom` in SQL, over endpoint `e`. */
function rateFromSql(now: Sql): Sql {
  return sql`GREATEST(${now}, COALESCE(e.rate_next_at, ${now}))`;
}

/**
 * The claim's first parts, in order:
 * - `pending`: the endpoints that have pending work, found by skipping along the pending rows' index from
 *   one endpoint to the next, so an endpoint with nothing pending (idle, not verified) costs nothing
 *   (the endpoints are then looked up by `= ANY(ARRAY(...))`, by primary key, never joined by a scan);
 * - `held`: of those, the ones whose row a claim writes (rate-limited, or in the slow lane), locked for
 *   the rest of the transaction (another claim passes over them meanwhile), with what they allow
 *   (`allowanceSql`); not those this transaction writes;
 * - `candidates`: each open endpoint's earliest due deliveries, up to its allowance, walking the pending
 *   rows' (endpoint_id, next_attempt_at) index, so the cost follows what is due, not the backlog;
 * - `chosen`: owners taking turns (`takeTurns`), at most `perOwner` of each and `limit` in all;
 * - `locked`: re-checked as they stand after any concurrent claim committed, skipping rows another holds.
 */
function claimParts(ctx: QueueContext, plan: ClaimPlan): Sql[] {
  const { now } = ctx;
  const perEndpoint = param(plan.perEndpoint, "int");
  return [
    sql`pending (id) AS (
      (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY endpoint_id LIMIT 1)
      UNION ALL
      SELECT (SELECT d.endpoint_id FROM webhook_deliveries d WHERE d.status = 'pending' AND d.endpoint_id > p.id
        ORDER BY d.endpoint_id LIMIT 1) FROM pending p WHERE p.id IS NOT NULL)`,
    sql`held AS (
      SELECT e.id, ${allowanceSql(now, perEndpoint)} AS allowance,
        CASE WHEN e.rate_limit IS NULL THEN NULL ELSE ${rateFromSql(now)} END AS rate_from,
        ${RATE_SPACING_SQL} / e.rate_limit AS spacing
      FROM webhook_endpoints e
      WHERE e.id = ANY(ARRAY(SELECT id FROM pending WHERE id IS NOT NULL)) AND e.status = 'active'
        AND (e.rate_limit IS NOT NULL OR e.timeouts >= ${SLOW_LANE_AFTER_SQL})
        AND NOT (e.id = ANY(${param(plan.keepBucketsOf, "bigint[]")}))
      FOR UPDATE OF e SKIP LOCKED)`,
    sql`candidates AS (
      SELECT due.id, due.next_attempt_at, due.place, COALESCE(e.subscriber_id, 0) AS owner
      FROM webhook_endpoints e LEFT JOIN held h ON h.id = e.id CROSS JOIN LATERAL (
        SELECT d.id, d.next_attempt_at, row_number() OVER (ORDER BY d.next_attempt_at, d.id) AS place
        FROM webhook_deliveries d
        WHERE d.endpoint_id = e.id AND ${claimableDelivery(postgresDialect, "d", now, plan)}
        ORDER BY d.next_attempt_at, d.id LIMIT COALESCE(h.allowance, ${perEndpoint})
      ) due
      WHERE e.id = ANY(ARRAY(SELECT id FROM pending WHERE id IS NOT NULL))
        AND ${claimableEndpoint(postgresDialect, plan)}
        AND ((e.rate_limit IS NULL AND e.timeouts < ${SLOW_LANE_AFTER_SQL}) OR h.id IS NOT NULL))`,
    sql`chosen AS (
      SELECT id FROM (
        SELECT id, next_attempt_at, place,
          row_number() OVER (PARTITION BY owner ORDER BY place, next_attempt_at, id) AS turn
        FROM candidates) c
      WHERE turn <= ${param(plan.perOwner, "int")}
      ORDER BY turn, place, next_attempt_at, id LIMIT ${param(plan.limit, "int")})`,
    sql`locked AS (
      SELECT d.id FROM webhook_deliveries d
      WHERE d.id IN (SELECT id FROM chosen) AND d.status = 'pending'
        AND (d.lease_until IS NULL OR d.lease_until <= ${now})
      FOR UPDATE SKIP LOCKED)`,
    sql`lease AS (SELECT ${param(plan.workerId, "text")} AS owner, ${now} + ${param(plan.leaseMs, "bigint")} AS until)`,
  ];
}

/** The claim's result by name, not `claimed.*`: a statement selecting `*` is never prepared. */
const CLAIMED_FROM_CTE = claimedNames("claimed");

/** The database's clock as the statement ends (ms): what a wait is counted from. */
const POSTGRES_CLOCK = raw("(extract(epoch FROM clock_timestamp()) * 1000)");

/**
 * Each claimed delivery's wait before it is sent: a rate-limited endpoint's starts follow its schedule,
 * `spacing` apart from `rate_from`, in due order. Counted from the statement's end, not its start (the
 * store's own clock; the outbox's `now` when it was given one), so the time the statement took does not
 * move the start. Read from `claimed` joined with `held` as `h`.
 */
function startInMs(now: Sql): Sql {
  const end = now === POSTGRES_NOW ? POSTGRES_CLOCK : now;
  return sql`CASE WHEN h.rate_from IS NULL THEN NULL ELSE h.rate_from - ${end} + h.spacing * (row_number()
    OVER (PARTITION BY claimed.endpoint_id ORDER BY claimed.next_attempt_at, claimed.id) - 1) END AS start_in_ms`;
}

/**
 * The claim's last parts: lease the locked rows and return them with their payload and endpoint joined
 * in (`claimed`), then write the rows of the held endpoints it took work for, and only those: a rate
 * limit's schedule moves on by what was taken, a slow-lane endpoint is closed until its one attempt's
 * lease ends (its record reopens it).
 */
function claimWrites(): Sql[] {
  return [
    sql`claimed AS (UPDATE webhook_deliveries d SET lease_owner = lease.owner, lease_until = lease.until
      FROM locked, lease, webhook_messages m, webhook_endpoints e
      WHERE d.id = locked.id AND m.id = d.message_id AND e.id = d.endpoint_id
      RETURNING ${CLAIMED_COLUMNS})`,
    sql`spent AS (UPDATE webhook_endpoints e
      SET rate_next_at = CASE WHEN h.rate_from IS NULL THEN e.rate_next_at ELSE h.rate_from + c.n * h.spacing END,
        slow_until = CASE WHEN e.timeouts >= ${SLOW_LANE_AFTER_SQL} THEN lease.until ELSE e.slow_until END
      FROM held h JOIN (SELECT endpoint_id, count(*) AS n FROM claimed GROUP BY endpoint_id) c
        ON c.endpoint_id = h.id, lease
      WHERE e.id = h.id)`,
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
        d AS (${fanOut(postgresDialect, raw("m"), undefined, messages)}),
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
          sql`WITH RECURSIVE ${join([...claimParts(ctx, claim), ...claimWrites()], ",\n")}
              SELECT ${CLAIMED_FROM_CTE}, ${startInMs(ctx.now)} FROM claimed LEFT JOIN held h ON h.id = claimed.endpoint_id`,
        ),
      };
    const parts = writes.map((write, index) => sql`${raw(`w${index}`)} AS (${write} RETURNING 1)`);
    const counted = writes.map((_, index) => raw(`(SELECT count(*) FROM w${index})::int AS w${index}`));
    const statement =
      claim === undefined
        ? sql`WITH ${join(parts, ",\n")}\nSELECT ${join(counted, ", ")}`
        : sql`WITH RECURSIVE ${join([...claimParts(ctx, claim), ...parts, ...claimWrites()], ",\n")}
              SELECT ${join(counted, ", ")}, ${CLAIMED_FROM_CTE}, ${startInMs(ctx.now)}
              FROM (SELECT 1) AS one LEFT JOIN claimed ON true LEFT JOIN held h ON h.id = claimed.endpoint_id`;
    const found = yield* rows<ClaimedRow & Record<string, number>>(statement);
    const first = found[0];
    return {
      counts: writes.map((_, index) => Number(first?.[`w${index}`] ?? 0)),
      claimed: found.filter((claimed) => claimed.id !== null && claimed.id !== undefined),
    };
  },
};
