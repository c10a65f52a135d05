import { el } from "@plant-store/app-shell/page-kit";
import type { Endpoint } from "./api-types.js";

/**
 * What an endpoint's row says under its event types, on the operator page and the portal alike: its
 * filter, how many messages the filter excluded (also after it was taken off: the count stays), and the
 * signature header names when they are not the standard ones. The filter is the caller's text: it goes
 * in through `el`'s `text`, like every value from the API.
 */
export function endpointNotes(endpoint: Endpoint): Array<HTMLElement | null> {
  const filtered = endpoint.filter !== null || endpoint.filteredCount > 0;
  return [
    endpoint.filter === null
      ? null
      : el("div", { className: "muted filter", text: `filter: ${endpoint.filter}`, max: 300 }),
    filtered
      ? el("div", {
          className: "muted filtered-count",
          text: `${endpoint.filteredCount} excluded by its filter`,
        })
      : null,
    endpoint.signatureHeaders === "svix"
      ? el("div", { className: "muted signature-headers", text: "signed as svix-* headers" })
      : null,
  ];
}
