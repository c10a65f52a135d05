import { StaleFilterSetError } from "../../errors.js";
import { OUTBOX_NOTIFY_CHANNEL } from "../../outbox.js";
import { CLAIM, type ClaimParam, claimValues, composedPerClock } from "../claim-params.js";
import { claimSelection, spentEndpoint, startInMs } from "../claim-sql.js";
import { CLAIMED_COLUMNS, claimedNames } from "../claimed-columns.js";
import { excludedEndpointIds, insertExclusions } from "../excluded-by-filters.js";
import { fanOut } from "../fan-out.js";
import { insertMessageRows } from "../insert-message-rows.js";
import type { InsertedMessage, MessageToInsert } from "../message-to-insert.js";
import { type Operation, row, rows } from "../operation.js";
import type { StoreStatements } from "../queue-context.js";
import type { ClaimedRow } from "../rows.js";
import { bindByName, join, param, raw, type Sql, sql } from "../sql.js";
import { POSTGRES_NOW, postgresDialect } from "./postgres-dialect.js";
import { POSTGRES_SCHEMA } from "./postgres-schema.js";

/**
 * The claim's parts, over its named parameters (`CLAIM`): its selection (`claimSelection`, written once
 * for both databases; `held` there is locked with `FOR UPDATE SKIP LOCKED`), then `locked`: the chosen
 * rows re-checked as they stand after any concurrent claim committed, skipping rows another holds.
 */
function claimParts(now: Sql): Sql[] {
  return [
    ...claimSelection(postgresDialect, now),
    sql`locked AS (
      SELECT d.id FROM webhook_deliveries d
      WHERE d.id IN (SELECT id FROM chosen) AND d.status = 'pending'
        AND (d.lease_until IS NULL OR d.lease_until <= ${now})
      FOR UPDATE SKIP LOCKED)`,
    sql`lease AS (SELECT ${CLAIM.workerId} AS owner, ${now} + ${CLAIM.leaseMs} AS until)`,
  ];
}

/**
 * The enqueue's exclusions as parts of its one statement, none while no filter excluded anything:
 * `x`, the rows (`insertExclusions`); with `counted`, `c`, those endpoints' `filtered_count` raised by
 * their rows in `x`, their rows found by id in id order (as every statement that writes several
 * endpoint rows locks them).
 */
function recordExclusions(messages: readonly MessageToInsert[], counted: boolean): Sql {
  const insert = insertExclusions(postgresDialect, raw("m"), messages);
  if (insert === undefined) return raw("");
  const x = sql`
        x AS (${insert}),`;
  if (!counted) return x;
  return sql`${x}
        c AS (UPDATE webhook_endpoints e SET filtered_count = e.filtered_count + (SELECT count(*) FROM x WHERE x.endpoint_id = e.id)
          WHERE ${postgresDialect.isIn(raw("e.id"), excludedEndpointIds(messages), "bigint")} AND e.id IN (SELECT endpoint_id FROM x)),`;
}

/**
 * The stored filter set's fingerprint (`FilterSet`): every filtered endpoint's id and expression, each
 * expression led by its length so no two sets read alike. One scan of the filtered endpoints.
 */
const FILTER_SET = raw(`(SELECT encode(sha256(convert_to(COALESCE(
    string_agg(id::text || ':' || length(filter)::text || ':' || filter, ',' ORDER BY id), ''), 'UTF8')), 'hex') AS fingerprint
  FROM webhook_endpoints WHERE filter IS NOT NULL)`);

/** The claim's result by name, not `claimed.*`: a statement selecting `*` is never prepared. */
const CLAIMED_FROM_CTE = claimedNames("claimed");

/** The database's clock as the statement ends (ms): what a wait is counted from. */
const POSTGRES_CLOCK = raw("(extract(epoch FROM clock_timestamp()) * 1000)");

/**
 * Each claimed delivery's wait (`startInMs`), counted from the statement's end, not its start (the
 * store's own clock; the outbox's `now` when it was given one), so the time the statement took does not
 * move the start.
 */
const startIn = (now: Sql) => startInMs("claimed", now === POSTGRES_NOW ? POSTGRES_CLOCK : now);

/**
 * The claim's last parts: lease the locked rows and return them with their payload and endpoint joined
 * in (`claimed`), then write the rows of the held endpoints it took work for, and only those
 * (`spentEndpoint`).
 */
function claimWrites(): Sql[] {
  return [
    sql`claimed AS (UPDATE webhook_deliveries d SET lease_owner = lease.owner, lease_until = lease.until
      FROM locked, lease, webhook_messages m, webhook_endpoints e
      WHERE d.id = locked.id AND m.id = d.message_id AND e.id = d.endpoint_id
      RETURNING ${CLAIMED_COLUMNS})`,
    sql`spent AS (UPDATE webhook_endpoints e
      SET ${spentEndpoint(raw("h.rate_from"), raw("h.spacing"), raw("c.n"), raw("lease.until"))}
      FROM held h JOIN (SELECT endpoint_id, count(*) AS n FROM claimed GROUP BY endpoint_id) c
        ON c.endpoint_id = h.id, lease
      WHERE e.id = h.id)`,
  ];
}

/**
 * The writes (`parts`, each counted by `counted`) and the claim as one statement, over the claim's named
 * parameters.
 */
function writeAndClaimStatement(now: Sql, parts: readonly Sql[], counted: readonly Sql[]): Sql {
  return sql`WITH RECURSIVE ${join([...claimParts(now), ...parts, ...claimWrites()], ",\n")}
              SELECT ${join([...counted, CLAIMED_FROM_CTE, startIn(now)], ", ")}
              FROM ${raw(parts.length === 0 ? "claimed" : "(SELECT 1) AS one LEFT JOIN claimed ON true")}
                LEFT JOIN held h ON h.id = claimed.endpoint_id`;
}

/** The claim alone (the worker's poll, `claimDue`), composed once and bound per call. */
const CLAIM_ONLY = composedPerClock<ClaimParam>((now) => writeAndClaimStatement(now, [], []));

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
  // transaction commits (the caller's, when it passed its client), in one statement. Given the filter
  // set its verdicts were computed from, it inserts only while that is still the stored set (`fs`, in the
  // statement's own snapshot); when it is not, nothing is written and one row of NULLs says so.
  *insertMessages(ctx, messages, options) {
    const filterSet = options?.filterSet;
    const checked = filterSet === undefined ? undefined : param(filterSet, "text");
    const filterSetPart = checked === undefined ? raw("") : sql`fs AS ${FILTER_SET},\n        `;
    const onlyIfCurrent = checked === undefined ? undefined : sql`(SELECT fingerprint FROM fs) = ${checked}`;
    const found = yield* rows<InsertedMessage & { id: InsertedMessage["id"] | null }>(
      sql`WITH ${filterSetPart}m AS (${insertMessageRows(postgresDialect, ctx.now, messages, onlyIfCurrent)}),
        d AS (${fanOut(postgresDialect, raw("m"), undefined, messages)}),${recordExclusions(messages, options?.countExclusions ?? false)}
        n AS (SELECT pg_notify(${param(OUTBOX_NOTIFY_CHANNEL, "text")}, '') FROM (SELECT 1 FROM d LIMIT 1) AS any_delivery)
        SELECT m.id, m.webhook_id, COALESCE(per.deliveries, 0)::int AS deliveries, (SELECT count(*) FROM n) AS notified
        FROM m LEFT JOIN (SELECT message_id, count(*) AS deliveries FROM d GROUP BY message_id) per ON per.message_id = m.id${
          checked === undefined
            ? raw("")
            : sql`
        UNION ALL SELECT NULL, NULL, NULL, NULL FROM fs WHERE fingerprint <> ${checked}`
        }`,
    );
    if (checked !== undefined && found.some((message) => message.id === null))
      throw new StaleFilterSetError();
    return found as InsertedMessage[];
  },
  *readFilterSet() {
    const found = yield* rows<{ fingerprint: string; id: number | string | null; filter: string | null }>(
      sql`SELECT fs.fingerprint, e.id, e.filter FROM ${FILTER_SET} AS fs
            LEFT JOIN webhook_endpoints e ON e.filter IS NOT NULL ORDER BY e.id`,
    );
    return {
      fingerprint: found[0]?.fingerprint ?? "",
      endpoints: found.flatMap((endpoint) =>
        endpoint.id === null || endpoint.filter === null
          ? []
          : [{ id: Number(endpoint.id), filter: endpoint.filter }],
      ),
    };
  },
  // The writes and the claim as one statement: each write a CTE of its own, the claim's parts first (a
  // statement is told apart by its start: pg_stat_activity keeps 1 kB). Every part sees the rows as they
  // were when the statement began, which is why the claim is told what the writes recorded and disabled.
  *writeAndClaim(ctx, writes, claim): Operation<{ counts: number[]; claimed: ClaimedRow[] }> {
    if (writes.length === 0 && claim === undefined) return { counts: [], claimed: [] };
    const parts = writes.map((write, index) => sql`${raw(`w${index}`)} AS (${write} RETURNING 1)`);
    const counted = writes.map((_, index) => raw(`(SELECT count(*) FROM w${index})::int AS w${index}`));
    // With writes, one row even when nothing is claimed: it carries their counts.
    const statement =
      claim === undefined
        ? sql`WITH ${join(parts, ",\n")}\nSELECT ${join(counted, ", ")}`
        : writes.length === 0
          ? CLAIM_ONLY(ctx.now, claimValues(claim))
          : bindByName(writeAndClaimStatement(ctx.now, parts, counted), claimValues(claim));
    const found = yield* rows<ClaimedRow & Record<string, number>>(statement);
    const first = found[0];
    return {
      counts: writes.map((_, index) => Number(first?.[`w${index}`] ?? 0)),
      claimed: found.filter((claimed) => claimed.id !== null && claimed.id !== undefined),
    };
  },
};
