import type { AttemptTimeline } from "@plant-store/sender";

const MINUTE = 60_000;

/** `GET /delivery-stats`: the store page's charts, one bucket per minute of the window, empty ones too. */
export interface DeliveryStats {
  since: string;
  until: string;
  windowMinutes: number;
  attempts: number;
  succeeded: number;
  successRate: number | null;
  minutes: Array<{ start: string; attempts: number; succeeded: number; failed: number }>;
  endpoints: Array<{ endpointId: number; attempts: number; p50Ms: number; p95Ms: number }>;
}

/**
 * The window's whole minutes, the current one last: `windowMinutes` buckets starting on the minute, so
 * a chart's bars line up with the clock and a minute is never split between two answers.
 */
export function deliveryStatsWindow(now: Date, windowMinutes: number): { since: Date; until: Date } {
  const current = Math.floor(now.getTime() / MINUTE) * MINUTE;
  return { since: new Date(current - (windowMinutes - 1) * MINUTE), until: now };
}

/** The timeline with every minute of the window in it, in order (a chart draws gaps as zero, not as nothing). */
export function presentDeliveryStats(
  timeline: AttemptTimeline,
  window: { since: Date; until: Date },
  windowMinutes: number,
): DeliveryStats {
  const found = new Map(timeline.minutes.map((minute) => [minute.start.getTime(), minute]));
  const minutes = Array.from({ length: windowMinutes }, (_, index) => {
    const start = window.since.getTime() + index * MINUTE;
    const attempts = found.get(start)?.attempts ?? 0;
    const succeeded = found.get(start)?.succeeded ?? 0;
    return { start: new Date(start).toISOString(), attempts, succeeded, failed: attempts - succeeded };
  });
  const attempts = minutes.reduce((sum, minute) => sum + minute.attempts, 0);
  const succeeded = minutes.reduce((sum, minute) => sum + minute.succeeded, 0);
  return {
    since: window.since.toISOString(),
    until: window.until.toISOString(),
    windowMinutes,
    attempts,
    succeeded,
    // No attempts is no evidence either way: null, not 0 % or 100 %.
    successRate: attempts === 0 ? null : succeeded / attempts,
    minutes,
    endpoints: timeline.endpoints.map(({ endpointId, attempts, p50Ms, p95Ms }) => ({
      endpointId,
      attempts,
      p50Ms,
      p95Ms,
    })),
  };
}
