import type { AttemptReport } from "../outbox.js";
import { SLOW_LANE_AFTER } from "./claim-allowance.js";

/** The first pause of an endpoint in the slow lane, doubling with each further timeout. */
export const SLOW_LANE_PAUSE_MS = 5_000;

/** The longest pause of the slow lane. */
export const MAX_SLOW_LANE_PAUSE_MS = 60_000;

/** An endpoint's slow-lane state, as its row holds it. */
export interface SlowLane {
  /** Attempts in a row that ended in a timeout. */
  timeouts: number;
  /** No claim for it before this (store clock, Unix ms); null: none. */
  slowUntil: number | null;
}

/** How long an endpoint with `timeouts` in a row waits before its next attempt (only in the lane). */
export function slowLanePauseMs(timeouts: number): number {
  return Math.min(MAX_SLOW_LANE_PAUSE_MS, SLOW_LANE_PAUSE_MS * 2 ** (timeouts - SLOW_LANE_AFTER));
}

/** An attempt that got no answer within its time. */
export const isTimeout = (report: Pick<AttemptReport, "result">): boolean =>
  report.result.error === "ETIMEDOUT";

/**
 * Each endpoint's slow lane after the batch's attempts, in order: a timeout adds to its run and, from
 * the `SLOW_LANE_AFTER`th, pauses it (5 s, doubling to a minute); any answer ends the run and the lane,
 * so an endpoint recovers by itself at its first answer. Only the endpoints in `before` (rows the record
 * read under their locks) are decided; an endpoint whose only attempts succeeded is cleared by a guarded
 * write instead.
 */
export function decideSlowLanes(
  reports: readonly AttemptReport[],
  endpointOf: (deliveryId: number) => number | undefined,
  before: ReadonlyMap<number, SlowLane>,
  now: number,
): Map<number, SlowLane> {
  const after = new Map([...before].map(([id, lane]) => [id, { ...lane }]));
  for (const report of reports) {
    const endpointId = endpointOf(report.deliveryId);
    const lane = endpointId === undefined ? undefined : after.get(endpointId);
    if (!lane) continue;
    if (isTimeout(report)) {
      lane.timeouts += 1;
      lane.slowUntil = lane.timeouts >= SLOW_LANE_AFTER ? now + slowLanePauseMs(lane.timeouts) : null;
    } else {
      lane.timeouts = 0;
      lane.slowUntil = null;
    }
  }
  return after;
}
