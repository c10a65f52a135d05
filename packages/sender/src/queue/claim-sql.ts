import { RATE_HORIZON_MS, RATE_SPACING_MS, SLOW_LANE_AFTER } from "./claim-allowance.js";
import { CLAIM } from "./claim-params.js";
import { claimableDelivery, claimableEndpoint } from "./claimable.js";
import type { Dialect } from "./dialect.js";
import { raw, type Sql, sql } from "./sql.js";

/** The constants as SQL text (never parameters: the statement's text and plan stay the same). */
const SLOW_LANE_AFTER_SQL = raw(String(SLOW_LANE_AFTER));
const RATE_SPACING_SQL = raw(`${RATE_SPACING_MS}.0`);

/** Whether a claim of endpoint `e` writes its row (its rate schedule or its slow lane), so holds it. */
export const WRITES_ON_CLAIM = sql`(e.rate_limit IS NOT NULL OR e.timeouts >= ${SLOW_LANE_AFTER_SQL})`;

/** When rate-limited endpoint `e`'s next start may be: now, or later if its schedule runs ahead. */
export function rateFrom(dialect: Dialect, now: Sql): Sql {
  return dialect.greatest(now, sql`COALESCE(e.rate_next_at, ${now})`);
}

/** The gap between rate-limited endpoint `e`'s starts (ms): `RATE_SPACING_MS` over its limit. */
export const RATE_SPACING = sql`(${RATE_SPACING_SQL} / e.rate_limit)`;

/**
 * How many due deliveries of endpoint `e` a claim at `now` may take: `perEndpoint`; one in the slow lane
 * (none while its pause or its one attempt's lease lasts); and for a rate limit the starts its schedule
 * has left within the horizon (`RATE_HORIZON_MS`).
 */
export function claimAllowance(dialect: Dialect, now: Sql, perEndpoint: Sql): Sql {
  const { least, greatest } = dialect;
  const left = sql`ceil((${now} + ${raw(String(RATE_HORIZON_MS))} - ${rateFrom(dialect, now)}) * e.rate_limit / ${RATE_SPACING_SQL})`;
  return least(
    sql`CASE WHEN e.timeouts < ${SLOW_LANE_AFTER_SQL} THEN ${perEndpoint}
      WHEN e.slow_until IS NOT NULL AND e.slow_until > ${now} THEN 0 ELSE ${least(perEndpoint, raw("1"))} END`,
    sql`CASE WHEN e.rate_limit IS NULL THEN ${perEndpoint} ELSE CAST(${greatest(raw("0"), left)} AS integer) END`,
  );
}

/**
 * The columns of an open endpoint `e` (`open`, below) at `now`: its owner, its allowance, and for a rate
 * limit where its starts begin and how far apart (NULL without one).
 */
function openColumns(dialect: Dialect, now: Sql): Sql {
  return sql`e.id, COALESCE(e.subscriber_id, 0) AS owner,
        ${claimAllowance(dialect, now, CLAIM.perEndpoint)} AS allowance,
        CASE WHEN e.rate_limit IS NULL THEN NULL ELSE ${rateFrom(dialect, now)} END AS rate_from,
        ${RATE_SPACING} AS spacing`;
}

/**
 * The claim's selection, written once for both databases over the claim's named parameters (`CLAIM`,
 * bound per call: the statement is composed once), as the parts of a `WITH RECURSIVE`, in order:
 * - `pending`: the endpoints that have pending work, found by skipping along the pending rows' index
 *   from one endpoint to the next, so an endpoint with nothing pending (idle, not verified) costs a claim
 *   nothing; the endpoints are then looked up by primary key (`dialect.fromIds`), never joined by a scan
 *   (on SQLite, a join scanned 3,000 idle endpoints and made an idle claim 4 times as costly);
 * - `held`: of the claimable ones, those whose row the claim writes (rate-limited, or in the slow lane),
 *   with what they allow, locked on PostgreSQL for the rest of the transaction (another claim passes over
 *   them meanwhile; their allowance is read from the row as it stands once locked). Not those the same
 *   transaction writes (`keepBucketsOf`): PostgreSQL cannot update one row twice in one statement;
 * - `open`: those (`held`, its id) and the claimable endpoints whose row the claim does not write;
 * - `candidates`: each open endpoint's earliest due deliveries, numbered (`place`), walking the pending
 *   rows' (endpoint_id, next_attempt_at) index and stopping after `perEndpoint` rows, so the cost follows
 *   what is due, not the backlog (a constant limit: SQLite's subquery cannot take its LIMIT from an outer
 *   column; the allowance, never over `perEndpoint`, is applied to `place` instead);
 * - `chosen`: of those within their endpoint's allowance, owners taking turns (`ownersTakeTurns`), with
 *   their endpoint's schedule and `held`, so SQLite reads its answer from it alone (`startFromPlace`).
 */
export function claimSelection(dialect: Dialect, now: Sql): Sql[] {
  const next = (alias: string, after: string) =>
    raw(`SELECT ${alias}.endpoint_id FROM webhook_deliveries ${alias} ${dialect.indexedBy("webhook_deliveries_pending_due")}
        WHERE ${alias}.status = 'pending'${after} ORDER BY ${alias}.endpoint_id LIMIT 1`);
  const open = sql`${dialect.fromIds("pending", "webhook_endpoints", "e")} AND ${claimableEndpoint(dialect)}`;
  return [
    sql`pending (id) AS (
      SELECT (${next("d", "")})
      UNION ALL
      SELECT (${next("d", " AND d.endpoint_id > p.id")}) FROM pending p WHERE p.id IS NOT NULL)`,
    sql`held AS (
      SELECT ${openColumns(dialect, now)} ${open} AND ${WRITES_ON_CLAIM}
        AND NOT (${dialect.inList(raw("e.id"), CLAIM.keepBucketsOf)})${dialect.skipLocked})`,
    sql`open AS (
      SELECT id, owner, allowance, rate_from, spacing, id AS held FROM held
      UNION ALL
      SELECT ${openColumns(dialect, now)}, NULL AS held ${open} AND NOT ${WRITES_ON_CLAIM})`,
    sql`candidates AS (
      SELECT due.id, due.endpoint_id, due.next_attempt_at, oe.owner, oe.allowance, oe.rate_from, oe.spacing, oe.held,
        row_number() OVER (PARTITION BY oe.id ORDER BY due.next_attempt_at, due.id) AS place
      FROM open oe ${dialect.joinFirst(
        "due",
        "webhook_deliveries",
        ["id", "endpoint_id", "next_attempt_at"],
        sql`WHERE x.endpoint_id = oe.id AND ${claimableDelivery(dialect, "x", now)}
          ORDER BY x.next_attempt_at, x.id LIMIT CAST(${CLAIM.perEndpoint} AS integer)`,
      )}
      WHERE oe.allowance > 0)`,
    // A LIMIT that is a bare parameter cost SQLite about 1 ms a claim even with nothing open (here and in
    // `chosen`; better-sqlite3 12, SQLite 3.53); cast, about 30 µs, and the text stays the same for any value.
    ownersTakeTurns(CLAIM),
  ];
}

/**
 * `chosen`, of the `candidates` within their endpoint's allowance: owners taking turns, each owner's first
 * (its endpoints' earliest due first, one per endpoint before any endpoint's second), then each owner's
 * second..., at most `perOwner` of an owner and `limit` in all. So an owner with a large backlog or many
 * endpoints takes one turn per round like an owner with one delivery due.
 */
export function ownersTakeTurns({ perOwner, limit }: { perOwner: Sql; limit: Sql }): Sql {
  return sql`chosen AS (
      SELECT id, endpoint_id, next_attempt_at, place, rate_from, spacing, held FROM (
        SELECT id, endpoint_id, next_attempt_at, place, rate_from, spacing, held,
          row_number() OVER (PARTITION BY owner ORDER BY place, next_attempt_at, id) AS turn
        FROM candidates WHERE place <= allowance) c
      WHERE turn <= ${perOwner}
      ORDER BY turn, place, next_attempt_at, id LIMIT CAST(${limit} AS integer))`;
}

/**
 * Each claimed delivery's wait before it is sent, over the claimed rows `claimed` joined with `held` as
 * `h` (every rate-limited endpoint claimed for is in it): a rate-limited endpoint's starts follow its
 * schedule, `spacing` apart from `rate_from`, in due order; counted from `end`.
 */
export function startInMs(claimed: string, end: Sql): Sql {
  return sql`CASE WHEN h.rate_from IS NULL THEN NULL ELSE h.rate_from - ${end} + h.spacing * (row_number()
    OVER (PARTITION BY ${raw(`${claimed}.endpoint_id ORDER BY ${claimed}.next_attempt_at, ${claimed}.id`)}) - 1) END AS start_in_ms`;
}

/**
 * `startInMs` for the rows of `chosen` as they are, without joining `held` again or numbering them again
 * (on SQLite that join and window were a quarter of the claim): an endpoint's chosen rows are its first
 * places (owners' turns follow place), so a row's place is its rank among them.
 */
export function startFromPlace(end: Sql): Sql {
  return sql`CASE WHEN c.rate_from IS NULL THEN NULL ELSE c.rate_from - ${end} + c.spacing * (c.place - 1) END AS start_in_ms`;
}

/**
 * The row of endpoint `e` once a claim took `taken` of its deliveries (as an UPDATE's SET): a rate
 * limit's schedule moves on by what was taken, from `from` `spacing` apart; a slow-lane endpoint is
 * closed `until` its one attempt's lease ends (its record reopens it).
 */
export function spentEndpoint(from: Sql, spacing: Sql, taken: Sql, until: Sql): Sql {
  return sql`rate_next_at = CASE WHEN e.rate_limit IS NULL THEN e.rate_next_at ELSE ${from} + ${taken} * ${spacing} END,
        slow_until = CASE WHEN e.timeouts >= ${SLOW_LANE_AFTER_SQL} THEN ${until} ELSE e.slow_until END`;
}
