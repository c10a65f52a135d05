import type { Endpoint, EndpointStatus, SubscriberScope } from "../../outbox.js";
import type { QueueContext } from "../dialect.js";
import { type Operation, row, wake } from "../operation.js";
import { type EndpointRow, toEndpoint } from "../rows.js";
import { raw, sql } from "../sql.js";
import { ownedBy } from "../subscriber-scope.js";

/** Disables or enables an endpoint; enabling ends its failing run and wakes the workers for its backlog. */
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
    }, failing_since = ${active ? sql`NULL` : sql`failing_since`}
        WHERE id = ${id} AND ${ownedBy(raw("subscriber_id"), scope)} RETURNING *`,
  );
  if (updated && active) yield* wake();
  return updated ? toEndpoint(updated, ctx.codec.open) : undefined;
}
