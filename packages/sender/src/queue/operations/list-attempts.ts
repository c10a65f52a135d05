import type { AttemptRecord, SubscriberScope } from "../../outbox.js";
import { type Operation, rows } from "../operation.js";
import { type AttemptRow, toAttempt } from "../rows.js";
import { raw, sql } from "../sql.js";
import { endpointInScope } from "../subscriber-scope.js";

/** A delivery's attempts, oldest first; none for another subscriber's delivery, as for a missing one. */
export function* listAttempts(deliveryId: number, scope?: SubscriberScope): Operation<AttemptRecord[]> {
  const inScope =
    scope === undefined
      ? sql`true`
      : sql`EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = ${deliveryId}
              AND ${endpointInScope(raw("d.endpoint_id"), scope)})`;
  const found = yield* rows<AttemptRow>(
    sql`SELECT * FROM webhook_attempts WHERE delivery_id = ${deliveryId} AND ${inScope} ORDER BY id`,
  );
  return found.map(toAttempt);
}
