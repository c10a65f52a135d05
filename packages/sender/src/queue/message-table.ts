import type { Dialect } from "./dialect.js";
import type { MessageToInsert } from "./message-to-insert.js";
import type { Sql } from "./sql.js";

/**
 * Messages to insert as the dialect's row set `input` (webhook_id, event_type, idempotency_key, payload,
 * traceparent, subscriber_id, ordering_key, n).
 */
export function messageTable(dialect: Dialect, messages: readonly MessageToInsert[]): Sql {
  return dialect.table(
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
}
