import type { Endpoint, SubscriberScope } from "../../outbox.js";
import type { QueueContext } from "../dialect.js";
import { type Operation, row, wake } from "../operation.js";
import { type EndpointRow, toEndpoint } from "../rows.js";
import { raw, sql } from "../sql.js";
import { ownedBy } from "../subscriber-scope.js";

/**
 * Records that a subscriber's endpoint passed verification now, and wakes the workers for the deliveries
 * it was holding back. An operator's endpoint is left as it is: it never needed it.
 */
export function* markEndpointVerified(
  ctx: QueueContext,
  id: number,
  scope?: SubscriberScope,
): Operation<Endpoint | undefined> {
  const updated = yield* row<EndpointRow>(
    sql`UPDATE webhook_endpoints
        SET verified_at = CASE WHEN subscriber_id IS NULL THEN verified_at ELSE ${ctx.now} END
        WHERE id = ${id} AND ${ownedBy(raw("subscriber_id"), scope)} RETURNING *`,
  );
  if (!updated) return undefined;
  const endpoint = toEndpoint(updated, ctx.codec.open);
  if (endpoint.subscriberId !== null) yield* wake();
  return endpoint;
}
