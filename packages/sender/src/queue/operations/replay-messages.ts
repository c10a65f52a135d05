import { EndpointNotFoundError } from "../../errors.js";
import type { SubscriberScope } from "../../outbox.js";
import { ADDRESSED_TO_ENDPOINT } from "../endpoint-receives.js";
import { count, type Operation, row, wake } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { raw, sql } from "../sql.js";
import { ownedBy } from "../subscriber-scope.js";

/**
 * Queues every retained message enqueued since `since` that the endpoint subscribes to again, due now
 * with a fresh schedule: a delivery it already has starts over (keeping its attempts), others are added.
 * A lease is freed: an attempt in flight may have started before what the replay was asked for, so it
 * only counts when recorded, and the delivery is sent again (receivers dedup by webhook id).
 * Only messages for everyone or addressed to the endpoint's own subscriber: a replay must not send one
 * subscriber's messages to another's endpoint (or the operator's).
 */
export function* replayMessages(
  ctx: QueueContext,
  endpointId: number,
  since: Date,
  scope?: SubscriberScope,
): Operation<number> {
  const endpoint = yield* row(
    sql`SELECT id FROM webhook_endpoints WHERE id = ${endpointId} AND ${ownedBy(raw("subscriber_id"), scope)}`,
  );
  if (!endpoint) throw new EndpointNotFoundError(`No endpoint ${endpointId}`);
  const queued = yield* count(
    sql`INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, event_type, ordering_key, status, next_attempt_at, created_at, updated_at)
        SELECT m.id, e.id, m.webhook_id, m.event_type, m.ordering_key, 'pending', ${ctx.now}, ${ctx.now}, ${ctx.now}
        FROM webhook_messages m, webhook_endpoints e
        WHERE e.id = ${endpointId} AND m.created_at >= ${since.getTime()}
          AND ${ADDRESSED_TO_ENDPOINT} AND ${ctx.dialect.subscribes(raw("e.event_types"), raw("m.event_type"))}
        ORDER BY m.id
        ON CONFLICT (message_id, endpoint_id) DO UPDATE SET
          status = 'pending', round_attempts = 0, next_attempt_at = ${ctx.now}, updated_at = ${ctx.now},
          lease_owner = NULL, lease_until = NULL`,
  );
  if (queued > 0) yield* wake();
  return queued;
}
