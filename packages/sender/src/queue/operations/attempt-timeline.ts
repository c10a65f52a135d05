import type { AttemptMinute, AttemptTimeline, EndpointLatency, SubscriberScope } from "../../outbox.js";
import { type Operation, rows } from "../operation.js";
import { raw, sql } from "../sql.js";
import { endpointInScope } from "../subscriber-scope.js";

type Num = number | string;

/**
 * Attempts started since `since`, per minute and per endpoint. Neither database has a percentile both
 * can run, so each endpoint's durations come back as a histogram (one row per distinct duration with
 * its count, in order) and the percentiles are read off it here: the rows grow with the distinct
 * durations (at most the delivery timeout in ms per endpoint), not with the number of attempts.
 */
export function* attemptTimeline(since: Date, scope?: SubscriberScope): Operation<AttemptTimeline> {
  const window = sql`FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
        WHERE a.started_at >= ${since.getTime()} AND ${endpointInScope(raw("d.endpoint_id"), scope)}`;
  // Integer division on both: started_at is an integer column, 60000 an integer literal.
  const minutes = yield* rows<{ minute: Num; attempts: Num; succeeded: Num }>(
    sql`SELECT a.started_at / 60000 AS minute, COUNT(*) AS attempts,
          SUM(CASE WHEN a.status BETWEEN 200 AND 299 THEN 1 ELSE 0 END) AS succeeded
        ${window}
        GROUP BY a.started_at / 60000 ORDER BY minute`,
  );
  const durations = yield* rows<{ endpoint_id: Num; duration_ms: Num; n: Num }>(
    sql`SELECT d.endpoint_id AS endpoint_id, a.duration_ms AS duration_ms, COUNT(*) AS n
        ${window}
        GROUP BY d.endpoint_id, a.duration_ms ORDER BY d.endpoint_id, a.duration_ms`,
  );
  return {
    minutes: minutes.map(
      (row): AttemptMinute => ({
        start: new Date(Number(row.minute) * 60_000),
        attempts: Number(row.attempts),
        succeeded: Number(row.succeeded),
      }),
    ),
    endpoints: latencies(durations),
  };
}

/** Groups the histogram rows (ordered by endpoint, then duration) per endpoint and reads its percentiles. */
function latencies(found: ReadonlyArray<{ endpoint_id: Num; duration_ms: Num; n: Num }>): EndpointLatency[] {
  const byEndpoint = new Map<number, Array<readonly [duration: number, count: number]>>();
  for (const row of found) {
    const id = Number(row.endpoint_id);
    const histogram = byEndpoint.get(id) ?? [];
    histogram.push([Number(row.duration_ms), Number(row.n)]);
    byEndpoint.set(id, histogram);
  }
  return [...byEndpoint].map(([endpointId, histogram]) => {
    const attempts = histogram.reduce((sum, [, count]) => sum + count, 0);
    return {
      endpointId,
      attempts,
      p50Ms: nearestRank(histogram, attempts, 50),
      p95Ms: nearestRank(histogram, attempts, 95),
    };
  });
}

/** The smallest duration `percent` % of the attempts took no longer than (nearest rank). */
function nearestRank(
  histogram: ReadonlyArray<readonly [duration: number, count: number]>,
  total: number,
  percent: number,
): number {
  // Integers until the division: 0.95 * 20 in floating point could round the rank up by one.
  const rank = Math.max(1, Math.ceil((percent * total) / 100));
  let seen = 0;
  for (const [duration, count] of histogram) {
    seen += count;
    if (seen >= rank) return duration;
  }
  return histogram[histogram.length - 1]?.[0] ?? 0;
}
