import { count, type Operation, rows } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import type { EndpointRow } from "../rows.js";
import { sql } from "../sql.js";

/** Rewrites every endpoint whose token or secrets are not under the cipher's current key; answers how many. */
export function* reencryptEndpoints(ctx: QueueContext): Operation<number> {
  const { codec } = ctx;
  const stored = yield* rows<Pick<EndpointRow, "id" | "token" | "secrets">>(
    sql`SELECT id, token, secrets FROM webhook_endpoints ORDER BY id${ctx.dialect.forUpdate}`,
  );
  let changed = 0;
  for (const endpoint of stored) {
    if (codec.isCurrent(endpoint.token) && codec.isCurrent(endpoint.secrets)) continue;
    yield* count(
      sql`UPDATE webhook_endpoints SET token = ${codec.seal(codec.open(endpoint.token))},
            secrets = ${codec.seal(codec.open(endpoint.secrets))} WHERE id = ${Number(endpoint.id)}`,
    );
    changed += 1;
  }
  return changed;
}
