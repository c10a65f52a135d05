import { el } from "@plant-store/app-shell/page-kit";
import type { Endpoint } from "./api-types.js";

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
