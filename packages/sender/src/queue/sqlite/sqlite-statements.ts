import { CLAIM, type ClaimParam, claimValues, composedPerClock } from "../claim-params.js";
import {
  claimSelection,
  RATE_SPACING,
  rateFrom,
  spentEndpoint,
  startFromPlace,
  WRITES_ON_CLAIM,
} from "../claim-sql.js";
import { CLAIMED_COLUMNS } from "../claimed-columns.js";
import { countExcluded, insertExclusions } from "../excluded-by-filters.js";
import { fanOut } from "../fan-out.js";
import { insertMessageRows } from "../insert-message-rows.js";
import type { InsertedMessage } from "../message-to-insert.js";
import { count, row, rows, wake } from "../operation.js";
import type { StoreStatements } from "../queue-context.js";
import type { ClaimedRow } from "../rows.js";
import { composedByName, composedOnce, join, named, raw, sql } from "../sql.js";
import { sqliteDialect } from "./sqlite-dialect.js";
import { SQLITE_SCHEMA } from "./sqlite-schema.js";

const { isIn, inList } = sqliteDialect;

// For one message (every `enqueueSync`), composing its fan-out at each call, and inserting it through a
// row set rather than VALUES, cost an enqueueSync 10-20% more CPU than statements composed once.
const ONE_FAN_OUT = composedOnce(
  fanOut(sqliteDialect, raw("webhook_messages m"), isIn(raw("m.id"), [0], "bigint")),
);

/** The claimed deliveries' ids, one parameter (JSON text) however many. */
const IDS = named("ids", "bigint[]");

// The claim's statements, composed once and bound per call (see `CLAIM`): the selection (`claimSelection`,
// written once for both databases), then the chosen rows leased and, when it took work for a held
// endpoint, the rows of the endpoints whose schedule or lane it spent written, and only those.
const CHOOSE = composedPerClock<ClaimParam>(
  (now) => sql`WITH RECURSIVE ${join(claimSelection(sqliteDialect, now), ",\n")}
          SELECT c.id, ${startFromPlace(now)}, c.held FROM chosen c`,
);
const LEASE = composedPerClock<ClaimParam | "ids">(
  (
    now,
  ) => sql`UPDATE webhook_deliveries SET lease_owner = ${CLAIM.workerId}, lease_until = ${now} + ${CLAIM.leaseMs}
          WHERE ${inList(raw("id"), IDS)}`,
);
const SPEND = composedPerClock<ClaimParam | "ids">(
  (
    now,
  ) => sql`UPDATE webhook_endpoints AS e SET ${spentEndpoint(rateFrom(sqliteDialect, now), RATE_SPACING, raw("c.n"), sql`${now} + ${CLAIM.leaseMs}`)}
          FROM (SELECT endpoint_id, count(*) AS n FROM webhook_deliveries WHERE ${inList(raw("id"), IDS)}
            GROUP BY endpoint_id) c
          WHERE e.id = c.endpoint_id AND ${WRITES_ON_CLAIM}`,
);
const CLAIMED = composedByName<"ids">(
  sql`SELECT ${CLAIMED_COLUMNS} FROM webhook_deliveries d
          JOIN webhook_messages m ON m.id = d.message_id JOIN webhook_endpoints e ON e.id = d.endpoint_id
          WHERE ${inList(raw("d.id"), IDS)}`,
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
  *insertMessages(ctx, messages, options) {
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
    const added = new Set(inserted.map((message) => message.webhook_id));
    const exclusions = insertExclusions(
      sqliteDialect,
      raw("webhook_messages m"),
      messages.filter((message) => added.has(message.webhookId)),
    );
    if (exclusions !== undefined) {
      const excluded = yield* rows<{ endpoint_id: number }>(exclusions);
      if (options?.countExclusions)
        yield* countExcluded(
          excluded.map((exclusion) => exclusion.endpoint_id),
          ctx,
        );
    }
    if (deliveries.size > 0) yield* wake();
    return inserted.map(
      (message): InsertedMessage => ({
        id: message.id,
        webhook_id: message.webhook_id,
        deliveries: deliveries.get(message.id) ?? 0,
      }),
    );
  },
  // The claim (`CHOOSE`, `LEASE`, `SPEND`, `CLAIMED`).
  // The write transaction holds the file: no other claim reads or spends an endpoint's schedule meanwhile.
  *writeAndClaim(ctx, writes, claim) {
    const counts: number[] = [];
    for (const write of writes) counts.push(yield* count(write));
    if (claim === undefined) return { counts, claimed: [] };
    const { now } = ctx;
    const values = claimValues(claim);
    const chosen = yield* rows<{ id: number; start_in_ms: number | null; held: number | null }>(
      CHOOSE(now, values),
    );
    if (chosen.length === 0) return { counts, claimed: [] };
    const ids = chosen.map((delivery) => delivery.id);
    yield* count(LEASE(now, { ...values, ids }));
    if (chosen.some((delivery) => delivery.held !== null)) yield* count(SPEND(now, { ...values, ids }));
    const startIn = new Map(chosen.map((delivery) => [Number(delivery.id), delivery.start_in_ms]));
    const found = yield* rows<ClaimedRow>(CLAIMED({ ids }));
    const claimed = found.map((row) => ({ ...row, start_in_ms: startIn.get(Number(row.id)) ?? null }));
    return { counts, claimed };
  },
};
