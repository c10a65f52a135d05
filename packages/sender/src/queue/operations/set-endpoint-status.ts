import type { Endpoint, EndpointStatus, SubscriberScope } from "../../outbox.js";
import { type Operation, row, wake } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { type EndpointRow, toEndpoint } from "../rows.js";
import { raw, sql } from "../sql.js";
import { ownedBy } from "../subscriber-scope.js";

/**
 * Disables or enables an endpoint; enabling wakes the workers for its backlog. Enabling a failing
 * endpoint restarts its run's clock rather than ending the run: it has not answered yet, so it gets the
 * policy's whole period again before it is disabled, and its first success is an `endpoint.recovered`.
 */
export function* setEndpointStatus(
  ctx: QueueContext,
  id: number,
  status: EndpointStatus,
  reason?: string,
  scope?: SubscriberScope,
): Operation<Endpoint | undefined> {
  const active = status === "active";
  const updated = yield* row<EndpointRow>(
    sql`UPDATE webhook_endpoints SET status = ${status}, disabled_reason = ${
      active ? null : (reason ?? "disabled by an operator")
    }, failing_since = ${active ? sql`CASE WHEN failing_since IS NULL THEN NULL ELSE ${ctx.now} END` : sql`failing_since`}
        WHERE id = ${id} AND ${ownedBy(raw("subscriber_id"), scope)} RETURNING *`,
  );
  if (updated && active) yield* wake();
  return updated ? toEndpoint(updated, ctx.codec.open) : undefined;
}
