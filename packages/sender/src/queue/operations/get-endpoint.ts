import type { Endpoint } from "../../outbox.js";
import type { QueueContext } from "../dialect.js";
import { type Operation, row } from "../operation.js";
import { type EndpointRow, toEndpoint } from "../rows.js";
import { sql } from "../sql.js";

export function* getEndpoint(ctx: QueueContext, id: number): Operation<Endpoint | undefined> {
  const found = yield* row<EndpointRow>(sql`SELECT * FROM webhook_endpoints WHERE id = ${id}`);
  return found ? toEndpoint(found, ctx.codec.open) : undefined;
}
