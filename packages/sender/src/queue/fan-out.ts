import type { Dialect } from "./dialect.js";
import { ADDRESSED_TO_ENDPOINT, ENDPOINT_RECEIVES } from "./endpoint-receives.js";
import type { MessageToInsert } from "./message-to-insert.js";
import { raw, type Sql, sql } from "./sql.js";

/**
 * The insert that creates messages' deliveries, written once for both databases: for each message `m`
 * that `from` names, one delivery per active endpoint `e` that receives (`ENDPOINT_RECEIVES`), is
 * addressed (`ADDRESSED_TO_ENDPOINT`) and subscribes to its type, due when the message was queued.
 * Returns each delivery's `message_id`. PostgreSQL names its just-inserted messages (`m`, a CTE);
 * SQLite reads them back by id (`webhook_messages m` and `where`). A message's `filteredOut` endpoints
 * (their filter excluded it) get none: the statement names them only when there are some, so it stays
 * the same while no filter excludes anything.
 */
export function fanOut(
  dialect: Dialect,
  from: Sql,
  where: Sql = raw("true"),
  messages: readonly MessageToInsert[] = [],
): Sql {
  const pairs = messages.flatMap((message) =>
    (message.filteredOut ?? []).map((endpointId) => `${message.webhookId} ${endpointId}`),
  );
  const unfiltered =
    pairs.length === 0
      ? raw("")
      : sql` AND NOT (${dialect.isIn(raw("(m.webhook_id || ' ' || e.id)"), pairs, "text")})`;
  return sql`INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, event_type, ordering_key, status, next_attempt_at, created_at, updated_at)
    SELECT m.id, e.id, m.webhook_id, m.event_type, m.ordering_key, 'pending', m.created_at, m.created_at, m.created_at
    FROM ${from} CROSS JOIN webhook_endpoints e
    WHERE ${where} AND e.status = 'active' AND ${ENDPOINT_RECEIVES} AND ${ADDRESSED_TO_ENDPOINT}
      AND ${dialect.subscribes(raw("e.event_types"), raw("m.event_type"))}${unfiltered}
    ORDER BY m.id, e.id RETURNING message_id`;
}
