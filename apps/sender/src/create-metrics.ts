import { createRegistry } from "@plant-store/app-shell";
import type { AttemptEvent, OperationalEvent } from "@plant-store/sender";
import { Counter, Histogram, type Registry } from "prom-client";

export interface StoreMetrics {
  registry: Registry;
  observe(event: AttemptEvent): void;
  /** One alert the worker recorded. */
  alert(alert: OperationalEvent): void;
}

/** Prometheus metrics of the delivery pipeline, in a registry of this app's own. */
export function createMetrics(): StoreMetrics {
  const registry = createRegistry();
  const attempts = new Counter({
    name: "plant_store_delivery_attempts_total",
    help: "Delivery attempts by outcome (delivered, retrying, failed, disabled)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const attemptDuration = new Histogram({
    name: "plant_store_delivery_attempt_duration_seconds",
    help: "Time of one HTTP attempt",
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    registers: [registry],
  });
  const latency = new Histogram({
    name: "plant_store_delivery_latency_seconds",
    help: "From queuing a delivery to the attempt that delivered it",
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 1800, 7200, 36000, 100000],
    registers: [registry],
  });
  const alerts = new Counter({
    name: "plant_store_alerts_total",
    help: "Alerts recorded by type (endpoint.failing, endpoint.disabled, endpoint.recovered, delivery.failed)",
    labelNames: ["type"] as const,
    registers: [registry],
  });
  return {
    registry,
    alert(alert) {
      alerts.inc({ type: alert.type });
    },
    observe(event) {
      attempts.inc({ outcome: event.outcome });
      attemptDuration.observe(event.durationMs / 1000);
      if (event.outcome === "delivered") {
        latency.observe(Math.max(0, Date.now() - Date.parse(event.queuedAt)) / 1000);
      }
    },
  };
}
