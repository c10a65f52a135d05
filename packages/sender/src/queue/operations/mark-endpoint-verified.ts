import type { Endpoint, SubscriberScope } from "../../outbox.js";
import { type Operation, row, wake } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { type EndpointRow, toEndpoint } from "../rows.js";
import { raw, sql } from "../sql.js";
import { ownedBy } from "../subscriber-scope.js";

/**
 * Records that a subscriber's endpoint passed verification now, and wakes the workers for the deliveries
 * it was holding back. An operator's endpoint is left as it is: it never needed it. Given the URL the
 * handshake went to, only an endpoint still at that URL is marked (in the same statement): a URL changed
 * while the handshake ran is not verified by the old one's answer.
 */
export function* markEndpointVerified(
  ctx: QueueContext,
  id: number,
  scope?: SubscriberScope,
  verifiedUrl?: string,
): Operation<Endpoint | undefined> {
  const sameUrl = verifiedUrl === undefined ? sql`true` : sql`url = ${verifiedUrl}`;
  const updated = yield* row<EndpointRow>(
    sql`UPDATE webhook_endpoints
        SET verified_at = CASE WHEN subscriber_id IS NULL THEN verified_at ELSE ${ctx.now} END
        WHERE id = ${id} AND ${ownedBy(raw("subscriber_id"), scope)} AND ${sameUrl} RETURNING *`,
  );
  if (!updated) return undefined;
  const endpoint = toEndpoint(updated, ctx.codec.open);
  if (endpoint.subscriberId !== null) yield* wake();
  return endpoint;
}
