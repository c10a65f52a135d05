import type { DeliveryRecord, SubscriberScope } from "../../outbox.js";
import { type Operation, row, wake } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { type DeliveryRow, toDelivery } from "../rows.js";
import { raw, sql } from "../sql.js";
import { endpointInScope } from "../subscriber-scope.js";

/**
 * Makes one delivery due now with its schedule started over, its lease freed: an attempt in flight only
 * counts when recorded (as after a replay), so the retry asked for is always made.
 */
export function* retryDelivery(
  ctx: QueueContext,
  id: number,
  scope?: SubscriberScope,
): Operation<DeliveryRecord | undefined> {
  const updated = yield* row<DeliveryRow>(
    sql`UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0, next_attempt_at = ${ctx.now},
          updated_at = ${ctx.now}, lease_owner = NULL, lease_until = NULL
        WHERE id = ${id} AND ${endpointInScope(raw("endpoint_id"), scope)} RETURNING *`,
  );
  if (updated) yield* wake();
  return updated ? toDelivery(updated) : undefined;
}
