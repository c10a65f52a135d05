import { describe, expect, it } from "vitest";
import { createRetryPolicy } from "../create-retry-policy.js";
import type { AttemptReport } from "../outbox.js";
import { type AlertDelivery, decideAlerts } from "./decide-alerts.js";
import { type BatchDeliveryState, type BatchEndpointState, decideAttempts } from "./decide-attempts.js";

const now = 10_000;
const policy = { ...createRetryPolicy({ schedule: "0,10s,10s", jitter: 0, disableAfterMs: 60_000 }) };
const report = (deliveryId: number, status: number, workerId = "w1"): AttemptReport => ({
  deliveryId,
  workerId,
  result: { startedAt: new Date(9_000), durationMs: 4, status, error: null, responseBody: "" },
});
const delivery = (eventType: string | null = "newPlant"): BatchDeliveryState & AlertDelivery => ({
  status: "pending",
  leaseOwner: "w1",
  leaseUntil: 5_000,
  attemptCount: 0,
  roundAttempts: 0,
  nextAttemptAt: 0,
  endpointId: 1,
  messageId: 7,
  webhookId: "msg_7",
  eventType,
});
const healthy: BatchEndpointState = {
  status: "active",
  disabledReason: null,
  failingSince: null,
  lastFailureAt: null,
};

/** The alerts of a batch on endpoint 1 (its row read under its lock, as `recordAttempts` reads it). */
function alertsOf(
  reports: AttemptReport[],
  state: BatchEndpointState,
  eventType: string | null = "newPlant",
) {
  const deliveries = new Map(reports.map((r) => [r.deliveryId, delivery(eventType)]));
  const endpoints = new Map([[1, state]]);
  const batch = decideAttempts(reports, policy, deliveries, endpoints, now);
  const about = new Map([
    [1, { url: "https://r.example/hook", subscriberId: null, failingSince: state.failingSince }],
  ]);
  return decideAlerts(reports, batch.decisions, deliveries, about, now).map((a) => [a.index, a.event.type]);
}

describe("decideAlerts", () => {
  it("follows a batch in order: a run starts, a success ends it, the next failure starts another", () => {
    expect(alertsOf([report(1, 503), report(2, 503), report(3, 200), report(4, 503)], healthy)).toEqual([
      [0, "endpoint.failing"],
      [2, "endpoint.recovered"],
      [3, "endpoint.failing"],
    ]);
  });

  it("says nothing of a run already going, nor of a late result", () => {
    const failing = { ...healthy, failingSince: 9_000, lastFailureAt: 9_500 };
    expect(alertsOf([report(1, 503)], failing)).toEqual([]);
    expect(alertsOf([report(1, 200, "someone-else")], failing)).toEqual([]);
  });

  it("raises no delivery.failed for an alert that failed for good", () => {
    const disabling = { ...healthy, failingSince: -100_000, lastFailureAt: 9_000 };
    expect(alertsOf([report(1, 503)], disabling)).toEqual([
      [0, "endpoint.disabled"],
      [0, "delivery.failed"],
    ]);
    expect(alertsOf([report(1, 503)], disabling, "endpoint.failing")).toEqual([[0, "endpoint.disabled"]]);
  });
});
