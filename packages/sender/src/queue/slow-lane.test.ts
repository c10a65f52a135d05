import { describe, expect, it } from "vitest";
import type { AttemptReport } from "../outbox.js";
import { decideSlowLanes, isTimeout, MAX_SLOW_LANE_PAUSE_MS, slowLanePauseMs } from "./slow-lane.js";

const report = (deliveryId: number, error: string | null, status: number | null = null): AttemptReport => ({
  deliveryId,
  workerId: "w",
  result: { status, error, startedAt: new Date(0), durationMs: 1, responseBody: "" },
});
const now = 1_000_000;
// Deliveries 1-9 go to endpoint 7, 10-19 to endpoint 8.
const endpointOf = (id: number) => (id < 10 ? 7 : id < 20 ? 8 : undefined);

describe("decideSlowLanes", () => {
  it("counts timeouts in a row and, from the third, pauses the endpoint 5 s, doubling up to a minute", () => {
    const lanes = decideSlowLanes(
      [report(1, "ETIMEDOUT"), report(2, "ETIMEDOUT")],
      endpointOf,
      new Map([[7, { timeouts: 0, slowUntil: null }]]),
      now,
    );
    expect(lanes.get(7)).toEqual({ timeouts: 2, slowUntil: null });
    const third = decideSlowLanes([report(3, "ETIMEDOUT")], endpointOf, lanes, now);
    expect(third.get(7)).toEqual({ timeouts: 3, slowUntil: now + 5_000 });
    expect(slowLanePauseMs(4)).toBe(10_000);
    expect(slowLanePauseMs(6)).toBe(40_000);
    expect(slowLanePauseMs(7)).toBe(MAX_SLOW_LANE_PAUSE_MS);
    expect(slowLanePauseMs(30)).toBe(60_000);
  });

  it("ends the run and the lane at any answer, a success or an error status, or another error", () => {
    const laned = () => new Map([[7, { timeouts: 5, slowUntil: now + 20_000 }]]);
    for (const answer of [report(1, null, 200), report(1, null, 500), report(1, "ECONNREFUSED")])
      expect(decideSlowLanes([answer], endpointOf, laned(), now).get(7)).toEqual({
        timeouts: 0,
        slowUntil: null,
      });
    // In order: an answer then a timeout starts a new run.
    expect(
      decideSlowLanes([report(1, null, 200), report(2, "ETIMEDOUT")], endpointOf, laned(), now).get(7),
    ).toEqual({ timeouts: 1, slowUntil: null });
  });

  it("decides only the endpoints it was given, and leaves the rows it read unchanged", () => {
    const before = new Map([[7, { timeouts: 1, slowUntil: null }]]);
    const lanes = decideSlowLanes(
      [report(11, "ETIMEDOUT"), report(30, "ETIMEDOUT")],
      endpointOf,
      before,
      now,
    );
    expect([...lanes.keys()]).toEqual([7]);
    expect(lanes.get(7)).toEqual({ timeouts: 1, slowUntil: null });
    decideSlowLanes([report(1, "ETIMEDOUT")], endpointOf, before, now);
    expect(before.get(7)).toEqual({ timeouts: 1, slowUntil: null });
  });

  it("knows a timeout by its error code", () => {
    expect(isTimeout(report(1, "ETIMEDOUT"))).toBe(true);
    expect(isTimeout(report(1, "ECONNRESET"))).toBe(false);
    expect(isTimeout(report(1, null, 504))).toBe(false);
  });
});
