import { renderStaticPage } from "@plant-store/app-shell";
// The script is pages/receiver-page.ts, bundled (scripts/page-script.ts).
import SCRIPT from "./pages/receiver-page.ts?page-script";

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 40rem; padding: 0 1rem; color: #1b3a1b; }
  h1 { font-size: 1.5rem; }
  #status { font-size: .875rem; color: #666; }
  #status[data-state="live"] { color: #2e7d32; }
  ul { list-style: none; padding: 0; }
  li { padding: .5rem .75rem; border-bottom: 1px solid #dde5dd; }
  li.new { animation: flash 1.5s ease-out; }
  .tag { font-size: .75rem; background: #e8f5e9; border-radius: .75rem; padding: .1rem .5rem; margin-left: .5rem; }
  .meta { display: block; font-size: .75rem; color: #777; }
  .muted { color: #777; font-size: .8rem; }
  table { border-collapse: collapse; width: 100%; font-size: .8rem; }
  th, td { text-align: left; padding: .25rem .4rem; border-bottom: 1px solid #dde5dd; }
  td.id { word-break: break-all; }
  h2 { font-size: 1.1rem; margin-top: 2rem; }
  #refused li { display: inline-block; border: 0; margin-right: 1rem; padding: 0; }
  @keyframes flash { from { background: #fff59d; } to { background: transparent; } }
`;

const BODY = `
<h1>Received plants</h1>
<p id="status" data-state="signed-out"></p>
<form id="login" hidden>
  <label>Read token <input id="read-token" type="password" autocomplete="off" required></label>
  <button type="submit">Open</button>
  <span id="login-message" class="muted"></span>
  <p class="muted">The token is exchanged for a session of this tab (kept in sessionStorage, sent as <code>Authorization: Bearer</code>); the token itself is not kept.</p>
</form>
<div id="main" hidden>
<p><button type="button" id="sign-out">Sign out</button></p>
<p id="empty">No plants yet.</p>
<ul id="plants"></ul>
<h2>Recent deliveries</h2>
<table>
  <thead><tr><th>Webhook id</th><th>Attempt</th><th>Duplicate</th><th>Status</th><th>Handled in</th><th>At</th></tr></thead>
  <tbody id="deliveries"></tbody>
</table>
<h2>Refused requests</h2>
<p id="no-refused">None.</p>
<ul id="refused"></ul>
<h2>Catch-up</h2>
<p id="catch-up" data-status="off">Off: start with --catch-up-from and --catch-up-token to pull what pushes missed.</p>
<ul id="catch-up-refused"></ul>
</div>
`;

const page = renderStaticPage({ title: "Plant receiver", style: STYLE, body: BODY, script: SCRIPT });

/** The live page: one static document, no data in it. */
export const PAGE_HTML = page.html;

/** Served with the page (see `renderStaticPage`). */
export const PAGE_HEADERS = page.headers;
