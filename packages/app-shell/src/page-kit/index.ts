/**
 * What the pages of both apps share of their scripts (the store page, the subscribers' portal, the
 * receiver's live page): showing any value as text, building elements with `textContent` only, keeping
 * a table's rows by key, the status line and notice, and calls to the page's JSON API with a session of
 * this tab. Browser code: bundled into each page's script at build time, never run by Node.
 */
export { type Act, type Api, createAct, createApi, exchange, SIGNED_OUT, tabSession } from "./api.js";
export { type Attributes, button, byId, el, fieldValue, notice, setStatus } from "./dom.js";
export { show, showLine } from "./show.js";
export { syncRows } from "./sync-rows.js";
