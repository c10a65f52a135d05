import type { EnqueueResult, SubscriberScope } from "../../outbox.js";
import { type Operation, row, wake } from "../operation.js";
import type { PreparedMessage } from "../prepare-message.js";
import type { QueueContext } from "../queue-context.js";
import { raw, sql } from "../sql.js";
import { ownedBy } from "../subscriber-scope.js";

/**
 * One message with one delivery, to the endpoint named, whatever it subscribes to (the caller chose it).
 * The message is addressed to the endpoint's subscriber, so a replay to another subscriber's endpoint
 * never sends it; to the operator's endpoint it is a message like any other.
 */
export function* sendToEndpoint(
  ctx: QueueContext,
  endpointId: number,
  message: PreparedMessage,
  traceparent: string | null,
  scope?: SubscriberScope,
): Operation<EnqueueResult | undefined> {
  const endpoint = yield* row<{ id: number | string; subscriber_id: number | string | null }>(
    sql`SELECT id, subscriber_id FROM webhook_endpoints
        WHERE id = ${endpointId} AND ${ownedBy(raw("subscriber_id"), scope)}`,
  );
  if (!endpoint) return undefined;
  const subscriberId = endpoint.subscriber_id === null ? null : Number(endpoint.subscriber_id);
  const inserted = yield* row<{ id: number | string }>(
    sql`INSERT INTO webhook_messages (webhook_id, event_type, payload, created_at, traceparent, subscriber_id, ordering_key)
        VALUES (${message.webhookId}, ${message.eventType}, ${message.payload}, ${ctx.now}, ${traceparent}, ${subscriberId}, ${message.orderingKey})
        RETURNING id`,
  );
  const messageId = Number(inserted?.id);
  yield* row(
    sql`INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, event_type, ordering_key, status, next_attempt_at, created_at, updated_at)
        VALUES (${messageId}, ${endpointId}, ${message.webhookId}, ${message.eventType}, ${message.orderingKey}, 'pending', ${ctx.now}, ${ctx.now}, ${ctx.now})
        RETURNING id`,
  );
  yield* wake();
  return { messageId, webhookId: message.webhookId, duplicate: false, deliveries: 1 };
}
