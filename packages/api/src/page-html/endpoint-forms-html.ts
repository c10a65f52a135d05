/**
 * The endpoint forms the operator page and the portal both have, written once: their scripts fill and
 * send them through the same code (`pages/endpoint-forms.ts`). `eventTypes` is already HTML-escaped.
 */
export function subscribeFormHtml(eventTypes: readonly string[]): string {
  const listed = eventTypes.length > 0 ? `${eventTypes.join(", ")}; ` : "";
  return `<form id="subscribe">
    Endpoint <select id="subscribe-endpoint"></select>
    receives <input id="subscribe-types" type="text" autocomplete="off" placeholder="every event type">
    <button type="submit" id="subscribe-button">Save</button>
    <span class="muted">Event types, comma-separated (${listed}a trailing * matches a prefix); empty: every event type.</span>
  </form>`;
}

export const FILTER_FORM_HTML = `<form id="endpoint-filter">
    Endpoint <select id="endpoint-filter-endpoint"></select>
    is sent only what <input id="endpoint-filter-expression" type="text" autocomplete="off" spellcheck="false" placeholder="no filter: every message"> is true for
    <button type="submit" id="endpoint-filter-button">Save</button>
    <span class="muted">A CEL expression over eventType and payload, say payload.tag == "tropical"; empty: no filter. From the next message on.</span>
  </form>`;
