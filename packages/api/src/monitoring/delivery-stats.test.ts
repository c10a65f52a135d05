import { describe, expect, it } from "vitest";
import { deliveryStatsWindow, presentDeliveryStats } from "./delivery-stats.js";

describe("GET /delivery-stats' answer", () => {
  const now = new Date("2026-01-01T12:00:42.500Z");

  it("spans the window's whole minutes, the current one last", () => {
    expect(deliveryStatsWindow(now, 3)).toEqual({
      since: new Date("2026-01-01T11:58:00.000Z"),
      until: now,
    });
    expect(deliveryStatsWindow(now, 1).since).toEqual(new Date("2026-01-01T12:00:00.000Z"));
  });

  it("answers every minute of the window, empty ones as zero, with the totals and the success rate", () => {
    const window = deliveryStatsWindow(now, 3);
    const stats = presentDeliveryStats(
      {
        minutes: [
          { start: new Date("2026-01-01T11:58:00.000Z"), attempts: 3, succeeded: 2 },
          { start: new Date("2026-01-01T12:00:00.000Z"), attempts: 1, succeeded: 0 },
        ],
        endpoints: [{ endpointId: 7, attempts: 4, p50Ms: 12, p95Ms: 80 }],
      },
      window,
      3,
    );
    expect(stats).toEqual({
      since: "2026-01-01T11:58:00.000Z",
      until: "2026-01-01T12:00:42.500Z",
      windowMinutes: 3,
      attempts: 4,
      succeeded: 2,
      successRate: 0.5,
      minutes: [
        { start: "2026-01-01T11:58:00.000Z", attempts: 3, succeeded: 2, failed: 1 },
        { start: "2026-01-01T11:59:00.000Z", attempts: 0, succeeded: 0, failed: 0 },
        { start: "2026-01-01T12:00:00.000Z", attempts: 1, succeeded: 0, failed: 1 },
      ],
      endpoints: [{ endpointId: 7, attempts: 4, p50Ms: 12, p95Ms: 80 }],
    });
  });

  it("gives no success rate without attempts: no evidence either way", () => {
    const stats = presentDeliveryStats({ minutes: [], endpoints: [] }, deliveryStatsWindow(now, 60), 60);
    expect(stats).toMatchObject({ attempts: 0, succeeded: 0, successRate: null, endpoints: [] });
    expect(stats.minutes).toHaveLength(60);
  });
});
