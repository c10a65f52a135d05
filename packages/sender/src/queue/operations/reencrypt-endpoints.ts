import { count, type Operation, rows } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import type { EndpointRow } from "../rows.js";
import { sql } from "../sql.js";

/**
 * Rewrites every endpoint whose token, secrets or static headers are not under the cipher's current key;
 * answers how many.
 */
export function* reencryptEndpoints(ctx: QueueContext): Operation<number> {
  const { codec } = ctx;
  const stored = yield* rows<Pick<EndpointRow, "id" | "token" | "secrets" | "headers">>(
    sql`SELECT id, token, secrets, headers FROM webhook_endpoints ORDER BY id${ctx.dialect.forUpdate}`,
  );
  let changed = 0;
  for (const endpoint of stored) {
    // No headers are stored as NULL: nothing to seal.
    const headers = endpoint.headers ?? null;
    if (
      codec.isCurrent(endpoint.token) &&
      codec.isCurrent(endpoint.secrets) &&
      (headers === null || codec.isCurrent(headers))
    )
      continue;
    yield* count(
      sql`UPDATE webhook_endpoints SET token = ${codec.seal(codec.open(endpoint.token))},
            secrets = ${codec.seal(codec.open(endpoint.secrets))},
            headers = ${headers === null ? null : codec.seal(codec.open(headers))} WHERE id = ${Number(endpoint.id)}`,
    );
    changed += 1;
  }
  return changed;
}
