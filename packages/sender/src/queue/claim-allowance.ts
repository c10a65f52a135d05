/** Timeouts in a row after which an endpoint is in the slow lane: one attempt in flight, then a pause. */
export const SLOW_LANE_AFTER = 3;

/**
 * A rate-limited endpoint's deliveries start `RATE_SPACING_MS / limit` apart, a fifth more than the limit
 * allows: `limit + 1` starts then span 1.2 s, so none of a second's sliding windows holds more than the
 * limit even when the starts reach the receiver up to 200 ms unevenly (two processes whose claims come
 * back after commits of different lengths, a start up to `RATE_LATE_MS` late, a loaded machine). With a
 * tenth (1.1 s), two processes on the project's 2-core machine put 6 of a 5/s endpoint's deliveries into
 * one second.
 */
export const RATE_SPACING_MS = 1200;

/**
 * How far ahead a claim schedules a rate-limited endpoint's starts: a second's worth, so a worker that
 * claims once a second (its poll) still keeps the endpoint at its rate.
 */
export const RATE_HORIZON_MS = 1000;

/**
 * A rate-limited delivery whose start comes later than this past its schedule (a slot that freed late, a
 * process busy loading) is given back unsent and claimed again into the schedule: sent late, it would
 * crowd the next start.
 */
export const RATE_LATE_MS = 50;

/** What a claim reads of an endpoint with due work to know how many of its deliveries it may take. */
export interface ClaimableEndpoint {
  timeouts: number;
  slowUntil: number | null;
  rateLimit: number | null;
  rateNextAt: number | null;
}

/** Whether a claim of the endpoint writes its row (its rate schedule or its slow lane), so holds it. */
export const writesOnClaim = (endpoint: Pick<ClaimableEndpoint, "timeouts" | "rateLimit">): boolean =>
  endpoint.rateLimit !== null || endpoint.timeouts >= SLOW_LANE_AFTER;

/** When a rate-limited endpoint's next start may be: now, or later if its schedule runs ahead. */
export const rateFrom = (endpoint: Pick<ClaimableEndpoint, "rateNextAt">, now: number): number =>
  Math.max(now, endpoint.rateNextAt ?? now);

/**
 * How many due deliveries of `endpoint` a claim at `now` may take: `perEndpoint`; one in the slow lane
 * (none while its pause or its one attempt's lease lasts); and for a rate limit the starts its schedule
 * has left within the horizon. SQLite's claim calls it; PostgreSQL's writes it in SQL (`allowanceSql` in
 * its dialect).
 */
export function claimAllowance(endpoint: ClaimableEndpoint, now: number, perEndpoint: number): number {
  let allowance = perEndpoint;
  if (endpoint.timeouts >= SLOW_LANE_AFTER)
    allowance = (endpoint.slowUntil ?? now) > now ? 0 : Math.min(allowance, 1);
  if (endpoint.rateLimit !== null) {
    const left = Math.ceil(
      ((now + RATE_HORIZON_MS - rateFrom(endpoint, now)) * endpoint.rateLimit) / RATE_SPACING_MS,
    );
    allowance = Math.min(allowance, Math.max(0, left));
  }
  return allowance;
}
