import { type Act, byId, fieldValue, notice } from "@plant-store/app-shell/page-kit";
import type { Endpoint } from "./api-types.js";

// The forms both pages have under their endpoints table: its event types, its filter, and a replay.

/** Comma-separated; nothing at all: every event type (null). The store checks each against its contract. */
export function bindSubscribeForm(act: Act): void {
  byId("subscribe").addEventListener("submit", (event) => {
    event.preventDefault();
    const id = fieldValue("subscribe-endpoint");
    const types = fieldValue("subscribe-types")
      .split(",")
      .map((type) => type.trim())
      .filter((type) => type !== "");
    act<{ endpoint: Endpoint }>(
      byId<HTMLButtonElement>("subscribe-button"),
      "PATCH",
      `/endpoints/${id}`,
      { eventTypes: types.length ? types : null },
      (data) => {
        const types = data.endpoint.eventTypes;
        notice(`Endpoint ${id} now receives ${types === null ? "every event type" : types.join(", ")}.`);
      },
    );
  });
}

/**
 * A CEL expression over `{ eventType, payload }`; nothing at all: no filter (null). The store checks it
 * (syntax, functions, loops, and the payload's field types where the endpoint lists event types) and
 * its refusal, which says what is wrong and at which line and column, is the notice.
 */
export function bindFilterForm(act: Act): void {
  byId("endpoint-filter").addEventListener("submit", (event) => {
    event.preventDefault();
    const id = fieldValue("endpoint-filter-endpoint");
    const filter = fieldValue("endpoint-filter-expression").trim();
    act<{ endpoint: Endpoint }>(
      byId<HTMLButtonElement>("endpoint-filter-button"),
      "PATCH",
      `/endpoints/${id}`,
      { filter: filter === "" ? null : filter },
      (data) =>
        notice(
          data.endpoint.filter === null
            ? `Endpoint ${id} has no filter: it is sent every message it subscribes to.`
            : `Endpoint ${id} is sent only the messages its filter is true for, from the next one on: ${data.endpoint.filter}`,
        ),
    );
  });
}

export function bindReplayForm(act: Act): void {
  byId("replay").addEventListener("submit", (event) => {
    event.preventDefault();
    const since = new Date(fieldValue("replay-since"));
    if (Number.isNaN(since.getTime())) {
      notice("Choose the time to replay from.");
      return;
    }
    const id = fieldValue("replay-endpoint");
    act<{ queued: number }>(
      byId<HTMLButtonElement>("replay-button"),
      "POST",
      "/replay",
      { endpointId: Number(id), since: since.toISOString() },
      (data) => notice(`Replay queued ${data.queued} deliveries to endpoint ${id}.`),
    );
  });
}

/** What the "Event types" button of an endpoint's row fills in. */
export function editEventTypes(endpoint: Endpoint): void {
  byId<HTMLSelectElement>("subscribe-endpoint").value = String(endpoint.id);
  const types = byId<HTMLInputElement>("subscribe-types");
  types.value = (endpoint.eventTypes ?? []).join(", ");
  types.focus();
}

/** What the "Filter" button of an endpoint's row fills in. */
export function editFilter(endpoint: Endpoint): void {
  byId<HTMLSelectElement>("endpoint-filter-endpoint").value = String(endpoint.id);
  const filter = byId<HTMLInputElement>("endpoint-filter-expression");
  filter.value = endpoint.filter ?? "";
  filter.focus();
}

/** What the "Move" button of an endpoint's row fills in. */
export function editUrl(endpoint: Endpoint): void {
  byId<HTMLSelectElement>("move-endpoint").value = String(endpoint.id);
  const url = byId<HTMLInputElement>("move-url");
  url.value = endpoint.url;
  url.select();
}
