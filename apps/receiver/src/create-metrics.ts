import { createRegistry } from "@plant-store/app-shell";
import { Counter, Histogram, type Registry } from "prom-client";

export interface Metrics {
  registry: Registry;
  requests: Counter<"outcome" | "status">;
  duration: Histogram<"outcome">;
  /** Read-side requests refused for their credential: wrong (401), or from a client slowed down (429). */
  readRefusals: Counter<"outcome">;
  /** Events the catch-up pulled from the store, by what became of them (received, duplicate, refused). */
  catchUpEvents: Counter<"outcome">;
}

/** The receiver's webhook and read-side metrics, in a registry of its own. */
export function createMetrics(): Metrics {
  const registry = createRegistry();
  return {
    registry,
    requests: new Counter({
      name: "plant_receiver_webhook_requests_total",
      help: "Webhook requests by outcome (received, duplicate, rejected, failed, verification) and HTTP status.",
      labelNames: ["outcome", "status"],
      registers: [registry],
    }),
    duration: new Histogram({
      name: "plant_receiver_webhook_request_duration_seconds",
      help: "Time to answer a webhook request, by outcome.",
      labelNames: ["outcome"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    readRefusals: new Counter({
      name: "plant_receiver_read_auth_refusals_total",
      help: "Read-side requests refused for their credential: wrong (401) or from a client slowed down (429).",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    catchUpEvents: new Counter({
      name: "plant_receiver_catch_up_events_total",
      help: "Events the catch-up pulled from the store's events API, by outcome (received, duplicate, refused: failed verification, skipped).",
      labelNames: ["outcome"],
      registers: [registry],
    }),
  };
}
