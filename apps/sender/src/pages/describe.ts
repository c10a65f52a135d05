import { el } from "@plant-store/app-shell/page-kit";
import type { Delivery, Endpoint, Health } from "./api-types.js";

export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "—");

// null: every event type, what an endpoint without a list receives.
export const subscriptions = (eventTypes: string[] | null) =>
  eventTypes === null ? "all" : eventTypes.join(", ");

export function rate(health: Health | null): string {
  if (!health || health.successRate === null) return "no attempts";
  return `${Math.round(health.successRate * 100)} % (${health.succeeded}/${health.attempts})`;
}

/** A delivery's state as shown: a pending one already attempted is retrying. */
export function deliveryState(delivery: Delivery): string {
  if (delivery.status === "pending" && delivery.attempts > 0) return "retrying";
  return delivery.status;
}

/**
 * A select of the endpoints, rebuilt only when they change, keeping the one chosen. Keyed by URL too:
 * an endpoint moved to another URL must not stay listed under its old one.
 */
export function chooseEndpoint(select: HTMLSelectElement, endpoints: readonly Endpoint[]): void {
  const shown = JSON.stringify(endpoints.map((endpoint) => [endpoint.id, endpoint.url]));
  if (select.dataset.endpoints === shown) return;
  select.dataset.endpoints = shown;
  const chosen = select.value;
  select.replaceChildren(
    ...endpoints.map((endpoint) =>
      el("option", { value: endpoint.id, text: `#${endpoint.id} ${endpoint.url}`, max: 80 }),
    ),
  );
  if (endpoints.some((endpoint) => String(endpoint.id) === chosen)) select.value = chosen;
}
