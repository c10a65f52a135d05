import { renderStaticPage, type StaticPage } from "@plant-store/app-shell/http";
import SCRIPT from "../pages/operator-page.ts?page-script";
// The script is pages/store-page.ts, bundled (scripts/page-script.ts).
import { FILTER_FORM_HTML, subscribeFormHtml } from "./endpoint-forms-html.js";

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
  .state-active, .state-delivered { background: #e3f3e4; }
  .state-disabled, .state-failed, .state-unverified { background: #fde2e1; }
  .state-pending { background: #eef; }
  .state-retrying { background: #fff3cd; }
  tr.details > td { background: #f7f9f7; }
  pre { margin: 0; white-space: pre-wrap; word-break: break-all; font-size: .8rem; }
  button { font: inherit; font-size: .8rem; margin: 0 .2rem .2rem 0; }
  #notice { background: #fff8e1; padding: .5rem .75rem; border-radius: .3rem; }
  #status[data-state="live"] { color: #2e7d32; }
  #status[data-state="error"] { color: #b71c1c; }
  form { margin: .5rem 0; }
  #subscribe-types { width: 16rem; }
  #move-url { width: 24rem; }
  #endpoint-filter-expression { width: 24rem; }
  /* Last hour charts (GET /delivery-stats). */
  #per-minute svg { width: 100%; height: auto; max-height: 15rem; display: block; }
  .chart-axis { stroke: #99a899; stroke-width: 1; }
  .chart-label { font-size: 11px; fill: #555; }
  .bar-succeeded { fill: #5f9e63; }
  .bar-failed { fill: #d0534c; }
  .rate-line { fill: none; stroke: #1b2a1b; stroke-width: 1.5; stroke-dasharray: 4 2; }
  .rate-point { fill: #1b2a1b; }
  .latency-p50 { fill: #7a9cc6; }
  .latency-p95 { fill: #2f5d94; }
  .swatch { display: inline-block; width: .7rem; height: .7rem; border-radius: .15rem; margin: 0 .25rem 0 .6rem; vertical-align: -.05rem; }
  .swatch-succeeded { background: #5f9e63; } .swatch-failed { background: #d0534c; }
  .swatch-rate { background: #1b2a1b; height: .15rem; vertical-align: .2rem; }
  .swatch-p50 { background: #7a9cc6; } .swatch-p95 { background: #2f5d94; }
  #success-rate { font-size: 1.05rem; }
  td.latency-bars svg { width: 14rem; height: 1.1rem; display: block; }
  /* Alerts block */
  #alerts { list-style: none; padding: 0; margin: 0; }
  #alerts li { padding: .25rem 0; border-bottom: 1px solid #dde5dd; }
  .state-endpoint-failing { background: #fff3cd; }
  .state-endpoint-disabled, .state-delivery-failed { background: #fde2e1; }
  .state-endpoint-recovered { background: #e3f3e4; }
`;

/** Text written into the page: markup is never built from it. */
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The operator page: one static document, no data in it but the API's title and event types (its
 * configuration, not data), rendered once per API.
 */
export function renderOperatorPage(options: { title: string; eventTypes: readonly string[] }): StaticPage {
  const EVENT_TYPES = options.eventTypes.map(escapeHtml);
  const title = escapeHtml(options.title);
  return renderStaticPage({
    title: options.title,
    style: STYLE,
    body: body(title, EVENT_TYPES),
    script: SCRIPT,
  });
}

const body = (title: string, EVENT_TYPES: readonly string[]) => `
<h1>${title}</h1>
<p id="status" data-state="signed-out"></p>
<form id="login" hidden>
  <label>Operator token <input id="token" type="password" autocomplete="off" required></label>
  <button type="submit">Open</button>
  <span id="login-message" class="muted"></span>
  <p class="muted">The token is exchanged for a session of this tab (kept in sessionStorage, sent as <code>Authorization: Bearer</code>); the token itself is not kept.</p>
</form>
<div id="main" hidden>
  <p><button type="button" id="sign-out">Sign out</button></p>
  <p id="notice" hidden></p>
  <!-- Last hour charts (GET /delivery-stats), drawn by the script. -->
  <section id="last-hour" aria-labelledby="last-hour-title">
    <h2 id="last-hour-title">Last hour</h2>
    <p id="success-rate">Loading…</p>
    <p class="muted" id="per-minute-legend">Deliveries per minute:<span class="swatch swatch-succeeded"></span>succeeded<span class="swatch swatch-failed"></span>failed<span class="swatch swatch-rate"></span>success rate (right axis)</p>
    <div id="per-minute"></div>
    <h3>Latency per endpoint <span class="muted">(attempt durations: <span class="swatch swatch-p50"></span>p50 <span class="swatch swatch-p95"></span>p95)</span></h3>
    <table id="latency-table">
      <thead><tr><th>Endpoint</th><th>Attempts</th><th>p50</th><th>p95</th><th></th></tr></thead>
      <tbody id="latency"></tbody>
    </table>
    <p id="no-latency" class="muted">No attempt in the last hour.</p>
  </section>
  <!-- End of the last hour charts. -->
  <h2>Endpoints</h2>
  <table>
    <thead><tr><th>Id</th><th>URL</th><th>Status</th><th>Failing since</th><th>Success, last hour</th><th>Secrets</th><th>Event types</th><th></th></tr></thead>
    <tbody id="endpoints"></tbody>
  </table>
  <p id="no-endpoints" class="muted">No endpoint yet.</p>
  ${subscribeFormHtml(EVENT_TYPES)}
  <form id="rate">
    Endpoint <select id="rate-endpoint"></select>
    at most <input id="rate-limit" type="number" min="1" max="10000" step="1" placeholder="no limit"> deliveries a second
    <button type="submit" id="rate-button">Save</button>
    <span class="muted">By every worker together, at most a second's worth at once; empty: no limit.</span>
  </form>
  ${FILTER_FORM_HTML}
  <form id="move">
    Endpoint <select id="move-endpoint"></select>
    moves to <input id="move-url" type="url" autocomplete="off" required placeholder="https://…">
    <button type="submit" id="move-button">Save</button>
    <span class="muted">Keeps its id, secrets and deliveries; the next attempt goes to the new URL. A subscriber's endpoint then needs the handshake again.</span>
  </form>
  <form id="replay">
    Replay to endpoint <select id="replay-endpoint"></select>
    every message since <input id="replay-since" type="datetime-local" step="1">
    <button type="submit" id="replay-button">Replay</button>
  </form>
  <h2>Deliveries <select id="filter" aria-label="Status">
    <option value="">all</option><option value="pending">pending or retrying</option>
    <option value="failed">failed</option><option value="delivered">delivered</option>
  </select> <select id="event-type-filter" aria-label="Event type">
    <option value="">all event types</option>${EVENT_TYPES.map((type) => `<option value="${type}">${type}</option>`).join("")}
  </select></h2>
  <table>
    <thead><tr><th>Id</th><th>Webhook id</th><th>Endpoint</th><th>Event type</th><th>State</th><th>Attempts</th><th>Last answer</th><th>Updated</th><th></th></tr></thead>
    <tbody id="deliveries"></tbody>
  </table>
  <p id="no-deliveries" class="muted">No delivery yet.</p>
  <!-- Alerts block -->
  <h2>Alerts <span class="muted">the last day's, newest first; also sent as operational webhooks to endpoints listing endpoint.* or delivery.failed</span></h2>
  <ul id="alerts"></ul>
  <p id="no-alerts" class="muted">No alert.</p>
  <!-- End of the alerts block -->
</div>
`;
