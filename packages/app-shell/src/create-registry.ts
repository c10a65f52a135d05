import { collectDefaultMetrics, Registry } from "prom-client";

/** A registry of the app's own (not prom-client's global one), so several apps can live in one process. */
export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}
