import type { Endpoint } from "../../outbox.js";
import type { QueueContext } from "../dialect.js";
import { type Operation, rows } from "../operation.js";
import { type EndpointRow, toEndpoint } from "../rows.js";
import { sql } from "../sql.js";

export function* listEndpoints(ctx: QueueContext): Operation<Endpoint[]> {
  const found = yield* rows<EndpointRow>(sql`SELECT * FROM webhook_endpoints ORDER BY id`);
  return found.map((endpoint) => toEndpoint(endpoint, ctx.codec.open));
}
