import type { EndpointAttemptStats, SubscriberScope } from "../../outbox.js";
import { type Operation, rows } from "../operation.js";
import { type EndpointStatsRow, toEndpointStats } from "../rows.js";
import { raw, sql } from "../sql.js";
import { endpointInScope } from "../subscriber-scope.js";

/** Attempts started since `since`, counted per endpoint: its success rate over a window. */
export function* endpointStats(since: Date, scope?: SubscriberScope): Operation<EndpointAttemptStats[]> {
  const found = yield* rows<EndpointStatsRow>(
    sql`SELECT d.endpoint_id AS endpoint_id, COUNT(*) AS attempts,
          SUM(CASE WHEN a.status BETWEEN 200 AND 299 THEN 1 ELSE 0 END) AS succeeded,
          MAX(a.started_at) AS last_attempt_at
        FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
        WHERE a.started_at >= ${since.getTime()} AND ${endpointInScope(raw("d.endpoint_id"), scope)}
        GROUP BY d.endpoint_id ORDER BY d.endpoint_id`,
  );
  return found.map(toEndpointStats);
}
