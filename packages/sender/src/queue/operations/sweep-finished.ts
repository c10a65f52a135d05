import type { SweepOptions, SweepResult } from "../../outbox.js";
import { count, type Operation, rows } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { raw, sql } from "../sql.js";

/**
 * One batch of retention: finished deliveries last touched before the cutoff with their attempts, and
 * messages that old with no delivery left. Rows another transaction holds (a retry making one pending)
 * are skipped, not waited for: they are not this sweep's to judge.
 */
export function* sweepFinished(ctx: QueueContext, options: SweepOptions): Operation<SweepResult> {
  const { dialect } = ctx;
  const batchSize = options.batchSize ?? 500;
  const ids = (yield* rows<{ id: number | string }>(
    sql`SELECT id FROM webhook_deliveries WHERE status IN ('delivered', 'failed')
            AND updated_at < ${ctx.now} - ${options.olderThanMs}
          ORDER BY updated_at LIMIT ${batchSize}${dialect.skipLocked}`,
  )).map((found) => Number(found.id));
  let attempts = 0;
  let deliveries = 0;
  if (ids.length > 0) {
    attempts = yield* count(
      sql`DELETE FROM webhook_attempts WHERE ${dialect.isIn(raw("delivery_id"), ids, "bigint")}`,
    );
    deliveries = yield* count(
      sql`DELETE FROM webhook_deliveries WHERE ${dialect.isIn(raw("id"), ids, "bigint")}`,
    );
  }
  const messages = yield* count(
    sql`DELETE FROM webhook_messages WHERE id IN (
          SELECT m.id FROM webhook_messages m WHERE m.created_at < ${ctx.now} - ${options.olderThanMs}
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = m.id)
          ORDER BY m.created_at LIMIT ${batchSize}${dialect.skipLocked})`,
  );
  return { deliveries, attempts, messages };
}
