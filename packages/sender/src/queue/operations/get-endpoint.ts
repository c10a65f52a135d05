import type { Endpoint, SubscriberScope } from "../../outbox.js";
import { type Operation, row } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { type EndpointRow, toEndpoint } from "../rows.js";
import { raw, sql } from "../sql.js";
import { ownedBy } from "../subscriber-scope.js";

export function* getEndpoint(
  ctx: QueueContext,
  id: number,
  scope?: SubscriberScope,
): Operation<Endpoint | undefined> {
  const found = yield* row<EndpointRow>(
    sql`SELECT * FROM webhook_endpoints WHERE id = ${id} AND ${ownedBy(raw("subscriber_id"), scope)}`,
  );
  return found ? toEndpoint(found, ctx.codec.open) : undefined;
}
