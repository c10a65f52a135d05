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
