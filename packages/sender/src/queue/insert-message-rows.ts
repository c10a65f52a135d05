import type { Dialect } from "./dialect.js";
import type { MessageToInsert } from "./message-to-insert.js";
import { raw, type Sql, sql } from "./sql.js";

/**
 * Inserts the messages in order (one parameter per column however many there are: the dialect's row
 * set), skipping any whose webhook id or idempotency key is taken, and returns the new rows as the
 * fan-out reads them (`fanOut`), only when `where` holds (all of them or none). Written once for both
 * databases; the WHERE clause lets SQLite tell the SELECT's end from the ON CONFLICT clause.
 */
export function insertMessageRows(
  dialect: Dialect,
  now: Sql,
  messages: readonly MessageToInsert[],
  where: Sql = raw("true"),
): Sql {
  const input = dialect.table(
    "input",
    [
      ["webhook_id", "text"],
      ["event_type", "text"],
      ["idempotency_key", "text"],
      ["payload", "text"],
      ["traceparent", "text"],
      ["subscriber_id", "bigint"],
      ["ordering_key", "text"],
    ],
    messages.map((message) => [
      message.webhookId,
      message.eventType,
      message.idempotencyKey,
      message.payload,
      message.traceparent,
      message.subscriberId,
      message.orderingKey,
    ]),
  );
  return sql`INSERT INTO webhook_messages (webhook_id, event_type, idempotency_key, payload, created_at, traceparent, subscriber_id, ordering_key)
    SELECT webhook_id, event_type, idempotency_key, payload, ${now}, traceparent, subscriber_id, ordering_key FROM ${input} WHERE ${where} ORDER BY n
    ON CONFLICT DO NOTHING RETURNING id, webhook_id, event_type, subscriber_id, ordering_key, created_at`;
}
