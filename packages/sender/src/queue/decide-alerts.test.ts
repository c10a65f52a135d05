import { describe, expect, it } from "vitest";
import type { AttemptReport } from "../outbox.js";
import { createRetryPolicy } from "../retry/create-retry-policy.js";
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
  alertAfterMs = 0,
) {
  const deliveries = new Map(reports.map((r) => [r.deliveryId, delivery(eventType)]));
  const endpoints = new Map([[1, state]]);
  const batch = decideAttempts(reports, policy, deliveries, endpoints, now);
  const about = new Map([
    [
      1,
      {
        url: "https://r.example/hook",
        subscriberId: null,
        failingSince: state.failingSince,
        lastFailureAt: state.lastFailureAt,
      },
    ],
  ]);
  return decideAlerts(reports, batch.decisions, deliveries, about, now, alertAfterMs).map((a) => [
    a.index,
    a.event.type,
  ]);
}

describe("decideAlerts", () => {
  it("alerts a run only once it has lasted alertAfterMs, and only an alerted run's end", () => {
    const after = 20_000;
    // A failure now and then: the run starts and ends within the 20 s, nothing is said.
    expect(alertsOf([report(1, 503), report(2, 200)], healthy, "newPlant", after)).toEqual([]);
    // A run that began 10 s ago (its last failure 1 s ago): not yet; nor its end.
    const young = { ...healthy, failingSince: now - 10_000, lastFailureAt: now - 1_000 };
    expect(alertsOf([report(1, 503)], young, "newPlant", after)).toEqual([]);
    expect(alertsOf([report(1, 200)], young, "newPlant", after)).toEqual([]);
    // Its first failure 20 s in says it is failing; the run's end then says it recovered.
    const due = { ...healthy, failingSince: now - 20_000, lastFailureAt: now - 1_000 };
    expect(alertsOf([report(1, 503), report(2, 200)], due, "newPlant", after)).toEqual([
      [0, "endpoint.failing"],
      [1, "endpoint.recovered"],
    ]);
    // Already said (a failure recorded 20 s or more in): not again, but its end is.
    const said = { ...healthy, failingSince: now - 40_000, lastFailureAt: now - 15_000 };
    expect(alertsOf([report(1, 503)], said, "newPlant", after)).toEqual([]);
    expect(alertsOf([report(1, 200)], said, "newPlant", after)).toEqual([[0, "endpoint.recovered"]]);
    // Restarted by an enable (it was disabled, which is always said): its end is said too.
    const enabled = { ...healthy, failingSince: now - 5_000, lastFailureAt: now - 50_000 };
    expect(alertsOf([report(1, 200)], enabled, "newPlant", after)).toEqual([[0, "endpoint.recovered"]]);
  });

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
