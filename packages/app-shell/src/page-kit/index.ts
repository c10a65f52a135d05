/**
 * What the pages of both apps share of their scripts (the store page, the subscribers' portal, the
 * receiver's live page): showing any value as text, building elements with `textContent` only, keeping
 * a table's rows by key, the status line and notice, and calls to the page's JSON API with a session of
 * this tab. Browser code: bundled into each page's script at build time, never run by Node.
 */
export { byId, fieldValue } from "./by-id.js";
export { type Act, createAct } from "./create-act.js";
export { type Api, createApi, SIGNED_OUT } from "./create-api.js";
export { type Attributes, button, el } from "./el.js";
export { exchange } from "./exchange.js";
export { notice } from "./notice.js";
export { setStatus } from "./set-status.js";
export { show, showLine } from "./show.js";
export { syncRows } from "./sync-rows.js";
export { tabSession } from "./tab-session.js";
