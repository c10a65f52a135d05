import type { EndpointCounts } from "../../outbox.js";
import { type Operation, row } from "../operation.js";
import { sql } from "../sql.js";

/**
 * One owner's endpoints counted for its caps: all of them, those with a rate limit, and those at `url`.
 * `subscriberId` null counts the operator's own (every endpoint no subscriber owns), never anyone else's.
 */
export function* countEndpoints(subscriberId: number | null, url?: string): Operation<EndpointCounts> {
  const owner = subscriberId === null ? sql`subscriber_id IS NULL` : sql`subscriber_id = ${subscriberId}`;
  const counted = yield* row<{
    endpoints: number | string;
    rate_limited: number | string;
    at_url: number | string | null;
  }>(
    sql`SELECT count(*) AS endpoints, count(rate_limit) AS rate_limited,
          sum(CASE WHEN url = ${url ?? null} THEN 1 ELSE 0 END) AS at_url
        FROM webhook_endpoints WHERE ${owner}`,
  );
  // PostgreSQL answers count(*) as a bigint, which pg hands over as text.
  return {
    endpoints: Number(counted?.endpoints ?? 0),
    rateLimited: Number(counted?.rate_limited ?? 0),
    atUrl: Number(counted?.at_url ?? 0),
  };
}
