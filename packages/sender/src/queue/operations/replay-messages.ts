import { EndpointNotFoundError } from "../../outbox-errors.js";
import type { QueueContext } from "../dialect.js";
import { count, type Operation, row, wake } from "../operation.js";
import { sql } from "../sql.js";

/**
 * Queues every retained message enqueued since `since` for one endpoint again, due now with a fresh
 * schedule: a delivery it already has starts over (keeping its attempts), others are added.
 */
export function* replayMessages(ctx: QueueContext, endpointId: number, since: Date): Operation<number> {
  const endpoint = yield* row(sql`SELECT id FROM webhook_endpoints WHERE id = ${endpointId}`);
  if (!endpoint) throw new EndpointNotFoundError(`No endpoint ${endpointId}`);
  const queued = yield* count(
    sql`INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, status, next_attempt_at, created_at, updated_at)
        SELECT id, ${endpointId}, webhook_id, 'pending', ${ctx.now}, ${ctx.now}, ${ctx.now} FROM webhook_messages
        WHERE created_at >= ${since.getTime()} ORDER BY id
        ON CONFLICT (message_id, endpoint_id) DO UPDATE SET
          status = 'pending', round_attempts = 0, next_attempt_at = ${ctx.now}, updated_at = ${ctx.now}`,
  );
  if (queued > 0) yield* wake();
  return queued;
}
