import { count, type Operation, wake } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { raw, sql } from "../sql.js";

/** Gives deliveries still held by `workerId` back untouched, due at once. */
export function* releaseLeases(
  ctx: QueueContext,
  deliveryIds: readonly number[],
  workerId: string,
): Operation<void> {
  if (deliveryIds.length === 0) return;
  const released = yield* count(
    sql`UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL
        WHERE ${ctx.dialect.isIn(raw("id"), deliveryIds, "bigint")} AND lease_owner = ${workerId}`,
  );
  if (released > 0) yield* wake();
}
