import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";

export interface Metrics {
  registry: Registry;
  requests: Counter<"outcome" | "status">;
  duration: Histogram<"outcome">;
}

/** A registry of its own (not prom-client's global one), so several apps can live in one process. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requests: new Counter({
      name: "plant_receiver_webhook_requests_total",
      help: "Webhook requests by outcome (received, duplicate, rejected, failed) and HTTP status.",
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
  };
}
