import type { Endpoint, SubscriberScope } from "../../outbox.js";
import { type Operation, rows } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { type EndpointRow, toEndpoint } from "../rows.js";
import { raw, sql } from "../sql.js";
import { ownedBy } from "../subscriber-scope.js";

export function* listEndpoints(ctx: QueueContext, scope?: SubscriberScope): Operation<Endpoint[]> {
  const found = yield* rows<EndpointRow>(
    sql`SELECT * FROM webhook_endpoints WHERE ${ownedBy(raw("subscriber_id"), scope)} ORDER BY id`,
  );
  return found.map((endpoint) => toEndpoint(endpoint, ctx.codec.open));
}
