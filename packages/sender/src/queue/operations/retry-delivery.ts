import type { DeliveryRecord } from "../../outbox.js";
import type { QueueContext } from "../dialect.js";
import { type Operation, row, wake } from "../operation.js";
import { type DeliveryRow, toDelivery } from "../rows.js";
import { sql } from "../sql.js";

/** Makes one delivery due now with its schedule started over. */
export function* retryDelivery(ctx: QueueContext, id: number): Operation<DeliveryRecord | undefined> {
  const updated = yield* row<DeliveryRow>(
    sql`UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0, next_attempt_at = ${ctx.now},
          updated_at = ${ctx.now}
        WHERE id = ${id} RETURNING *`,
  );
  if (updated) yield* wake();
  return updated ? toDelivery(updated) : undefined;
}
