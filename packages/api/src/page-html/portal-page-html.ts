import { renderStaticPage, type StaticPage } from "@plant-store/app-shell/http";
import SCRIPT from "../pages/portal-page.ts?page-script";
// The script is pages/portal-page.ts, bundled (scripts/page-script.ts).
import { FILTER_FORM_HTML, subscribeFormHtml } from "./endpoint-forms-html.js";

// The store page's look, so an operator and a subscriber read the same tables.
const STYLE = `
  body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5rem auto; max-width: 72rem; padding: 0 1rem; color: #1b2a1b; }
  h1 { font-size: 1.4rem; margin-bottom: .25rem; }
  h2 { font-size: 1.1rem; margin-top: 1.75rem; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #dde5dd; vertical-align: top; }
  th { font-size: .75rem; text-transform: uppercase; color: #555; }
  td.wrap { word-break: break-all; max-width: 24rem; }
  .muted { color: #777; font-size: .8rem; }
  .state { border-radius: .6rem; padding: .05rem .5rem; font-size: .8rem; white-space: nowrap; }
  .state-active, .state-delivered, .state-verified { background: #e3f3e4; }
  .state-disabled, .state-failed { background: #fde2e1; }
  .state-pending, .state-unverified { background: #eef; }
  .state-retrying { background: #fff3cd; }
  tr.details > td { background: #f7f9f7; }
  pre { margin: 0; white-space: pre-wrap; word-break: break-all; font-size: .8rem; }
  button { font: inherit; font-size: .8rem; margin: 0 .2rem .2rem 0; }
  #notice { background: #fff8e1; padding: .5rem .75rem; border-radius: .3rem; white-space: pre-wrap; word-break: break-all; }
  #ended { background: #fde2e1; padding: .75rem 1rem; border-radius: .3rem; font-weight: 600; }
  #status[data-state="live"] { color: #2e7d32; }
  #status[data-state="error"] { color: #b71c1c; }
  form { margin: .5rem 0; }
  #add-url, #move-url, #endpoint-filter-expression { width: 24rem; }
  #subscribe-types { width: 16rem; }
`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const body = (title: string, EVENT_TYPES: readonly string[]) => `
<h1>${title}</h1>
<p id="status" data-state="connecting"></p>
<p id="ended" hidden></p>
<div id="main" hidden>
  <p>The webhooks of <strong id="who"></strong> <button type="button" id="sign-out" data-action="sign-out">Sign out</button></p>
  <p id="notice" hidden></p>
  <h2>Endpoints</h2>
  <p class="muted">A new endpoint, or one whose URL changed, is sent nothing until it passes the store's verification handshake.</p>
  <table>
    <thead><tr><th>Id</th><th>URL</th><th>Status</th><th>Verified</th><th>Success, last hour</th><th>Event types</th><th></th></tr></thead>
    <tbody id="endpoints"></tbody>
  </table>
  <p id="no-endpoints" class="muted">No endpoint yet.</p>
  <form id="add">
    Add an endpoint: URL <input id="add-url" type="url" autocomplete="off" required placeholder="https://…">
    bearer token <input id="add-token" type="password" autocomplete="off" required>
    <button type="submit" id="add-button">Add</button>
    <span class="muted">The store generates its signing secret and shows it once.</span>
  </form>
  ${subscribeFormHtml(EVENT_TYPES)}
  ${FILTER_FORM_HTML}
  <form id="move">
    Endpoint <select id="move-endpoint"></select>
    moves to <input id="move-url" type="url" autocomplete="off" required placeholder="https://…">
    <button type="submit" id="move-button">Save</button>
    <span class="muted">Keeps its id, secret and deliveries; it is sent nothing until the new URL passes the handshake again.</span>
  </form>
  <form id="replay">
    Replay to endpoint <select id="replay-endpoint"></select>
    everything since <input id="replay-since" type="datetime-local" step="1">
    <button type="submit" id="replay-button">Replay</button>
  </form>
  <h2>Deliveries <select id="filter" aria-label="Status">
    <option value="">all</option><option value="pending">pending or retrying</option>
    <option value="failed">failed</option><option value="delivered">delivered</option>
  </select></h2>
  <table>
    <thead><tr><th>Id</th><th>Webhook id</th><th>Endpoint</th><th>Event type</th><th>State</th><th>Attempts</th><th>Last answer</th><th>Updated</th><th></th></tr></thead>
    <tbody id="deliveries"></tbody>
  </table>
  <p id="no-deliveries" class="muted">No delivery yet.</p>
</div>
`;

/** A subscriber's portal (`GET /portal#psl_…`): one static document, no data in it but the API's title and event types. */
export function renderPortalPage(options: { title: string; eventTypes: readonly string[] }): StaticPage {
  return renderStaticPage({
    title: options.title,
    style: STYLE,
    body: body(escapeHtml(options.title), options.eventTypes.map(escapeHtml)),
    script: SCRIPT,
  });
}
