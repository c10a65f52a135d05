// How the pages word a few of the API's values: times, subscriptions, success rates, delivery states.
import type { Delivery, Health } from "./api-types.js";

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
