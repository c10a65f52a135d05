import { renderStaticPage } from "@plant-store/app-shell";

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

/**
 * The live page's script. It signs in without a read token in any URL: a single-use code from a
 * `#code=` link (a fragment, never sent to the server), or the read token typed into its form, is
 * exchanged (`POST /sessions`) for a session kept in this tab's sessionStorage and sent as
 * `Authorization: Bearer` on every request. That is why the stream is read with `fetch`, not
 * `EventSource`, which cannot send a header.
 *
 * It loads `/plants` each time its `/events` stream opens (the first time and after every reconnect),
 * never before: a plant stored before the stream is open is in that list, one stored after it comes
 * as an event, and webhook ids already shown are skipped, so none is lost or shown twice. Plants are
 * placed by arrival time, newest first, whichever way they come. Text goes in through `textContent`
 * only, after `show()` makes control, bidirectional and invisible characters visible: plant names are
 * untrusted. Below the plants, each recent delivery's details and the refused requests by status code
 * come from `/deliveries`, polled every 2 s and after every plant event.
 */
const SCRIPT = String.raw`
(function () {
  "use strict";
  var KEY = "plant-receiver-session";
  var $ = function (id) { return document.getElementById(id); };
  var list = $("plants");
  var seen = new Set();
  var streamOpen = false;
  var stream = null;
  var retry = null;
  var timer = null;
  var polling = false;

  function session() { return sessionStorage.getItem(KEY); }

  // Control characters, line and paragraph separators, bidirectional controls and invisible
  // characters shown as \u escapes: a name can neither hide, reorder nor break lines.
  function show(value) {
    return String(value).replace(/[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g, function (c) {
      return "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
    });
  }

  function setStatus(state, text) {
    $("status").dataset.state = state;
    $("status").textContent = text;
    document.body.dataset.live = state;
  }

  function authorized(path, init) {
    var options = init || {};
    options.headers = Object.assign({ authorization: "Bearer " + session() }, options.headers || {});
    return fetch(path, options).then(function (response) {
      if (response.status === 401) { signOut("Your session has ended; sign in again."); throw new Error("401"); }
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response;
    });
  }

  function render(plant, fresh) {
    if (seen.has(plant.webhookId)) return;
    seen.add(plant.webhookId);
    $("empty").hidden = true;
    var at = Date.parse(plant.receivedAt);
    var item = document.createElement("li");
    item.dataset.webhookId = plant.webhookId;
    item.dataset.plantId = String(plant.id);
    item.dataset.at = String(at);
    if (fresh) item.className = "new";
    var name = document.createElement("strong");
    name.className = "name";
    name.textContent = show(plant.name);
    item.appendChild(name);
    if (plant.tag) {
      var tag = document.createElement("span");
      tag.className = "tag";
      tag.textContent = show(plant.tag);
      item.appendChild(tag);
    }
    var meta = document.createElement("span");
    meta.className = "meta";
    meta.textContent = "#" + plant.id + " · " + new Date(plant.receivedAt).toLocaleString();
    item.appendChild(meta);
    // Before the first one that arrived earlier: newest first (a live plant usually goes on top).
    var next = list.firstElementChild;
    while (next && Number(next.dataset.at) >= at) next = next.nextElementSibling;
    list.insertBefore(item, next);
  }

  // Only once the stream is open: a plant stored between loading the list and opening the stream
  // would be in neither. Also after a reconnect, for the plants stored while it was down.
  function load() {
    authorized("/plants?limit=100")
      .then(function (response) { return response.json(); })
      .then(function (body) {
        body.plants.forEach(function (plant) { render(plant, false); });
        if (streamOpen) setStatus("live", "Live: new plants appear as they arrive.");
      })
      .catch(function (error) { if (error.message !== "401") setStatus("error", "Could not load the plants received so far."); });
  }

  function cell(row, text, className) {
    var td = document.createElement("td");
    td.textContent = text;
    if (className) td.className = className;
    row.appendChild(td);
  }
  function details() {
    if (polling || !session()) return;
    polling = true;
    authorized("/deliveries")
      .then(function (response) { return response.json(); })
      .then(function (body) {
        var rows = body.deliveries.map(function (entry) {
          var row = document.createElement("tr");
          row.dataset.webhookId = entry.webhookId;
          row.dataset.attempt = String(entry.attempt);
          row.dataset.duplicate = String(entry.duplicate);
          cell(row, show(entry.webhookId), "id");
          cell(row, entry.attempt + (entry.attemptSource === "seen" ? " (seen here)" : ""), "attempt");
          cell(row, entry.duplicate ? "duplicate" : "new", "duplicate");
          cell(row, String(entry.status), "status");
          cell(row, entry.handledMs + " ms", "handled");
          cell(row, new Date(entry.handledAt).toLocaleTimeString(), "at");
          return row;
        });
        $("deliveries").replaceChildren.apply($("deliveries"), rows);
        var codes = Object.keys(body.refused).sort();
        $("no-refused").hidden = codes.length > 0;
        $("refused").replaceChildren.apply($("refused"), codes.map(function (code) {
          var item = document.createElement("li");
          item.dataset.status = code;
          item.textContent = code + ": " + body.refused[code];
          return item;
        }));
      })
      .catch(function () { /* the plants' status line tells about the connection */ })
      .finally(function () { polling = false; });
  }

  // One server-sent event: its lines up to the blank line that ends it.
  function dispatch(block) {
    var name = "message";
    var data = [];
    block.split("\n").forEach(function (line) {
      if (line.indexOf("event:") === 0) name = line.slice(6).trim();
      else if (line.indexOf("data:") === 0) data.push(line.slice(5).replace(/^ /, ""));
    });
    if (name === "plant" && data.length) { render(JSON.parse(data.join("\n")), true); details(); }
  }

  // The /events stream, read with fetch so it can carry the session; reconnects 2 s after it ends.
  function connect() {
    clearTimeout(retry);
    var controller = new AbortController();
    stream = controller;
    authorized("/events", { signal: controller.signal, headers: { accept: "text/event-stream" } })
      .then(function (response) {
        streamOpen = true;
        load();
        var reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        var buffer = "";
        function pump() {
          return reader.read().then(function (chunk) {
            if (chunk.done) throw new Error("stream ended");
            buffer = (buffer + chunk.value).replace(/\r\n?/g, "\n");
            var blocks = buffer.split("\n\n");
            buffer = blocks.pop();
            blocks.forEach(dispatch);
            return pump();
          });
        }
        return pump();
      })
      .catch(function () {
        streamOpen = false;
        if (controller.signal.aborted || !session()) return;
        setStatus("reconnecting", "Disconnected; reconnecting…");
        retry = setTimeout(connect, 2000);
      });
  }

  // A sign-in code or the read token, posted (never in a URL), for a session of this tab.
  function exchange(credential) {
    return fetch("/sessions", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(credential) })
      .then(function (response) {
        return response.text().then(function (text) {
          var data = text ? JSON.parse(text) : null;
          if (!response.ok) throw new Error((data && data.message) || "HTTP " + response.status);
          return data.session;
        });
      });
  }
  function signIn(value) {
    sessionStorage.setItem(KEY, value);
    $("login").hidden = true;
    $("main").hidden = false;
    setStatus("connecting", "Connecting…");
    connect();
    details();
    clearInterval(timer);
    timer = setInterval(details, 2000);
  }
  function signOut(message, end) {
    var ended = session();
    if (end && ended) fetch("/sessions/current", { method: "DELETE", headers: { authorization: "Bearer " + ended } }).catch(function () {});
    sessionStorage.removeItem(KEY);
    clearInterval(timer);
    clearTimeout(retry);
    if (stream) stream.abort();
    streamOpen = false;
    $("main").hidden = true;
    $("login").hidden = false;
    $("login-message").textContent = show(message || "");
    setStatus("signed-out", "Signed out.");
  }

  $("login").addEventListener("submit", function (event) {
    event.preventDefault();
    var value = $("read-token").value;
    $("read-token").value = "";
    if (!value) return;
    exchange({ token: value }).then(signIn, function (error) { signOut(error.message, false); });
  });
  $("sign-out").addEventListener("click", function () { signOut("", true); });

  // A sign-in link (#code=…): the code is taken off the address bar at once and spent on a session.
  var fragment = new URLSearchParams(location.hash.slice(1));
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
  if (fragment.get("code")) {
    exchange({ code: fragment.get("code") }).then(signIn, function (error) {
      signOut("This sign-in link cannot be used (" + error.message + "); ask for a new one or enter the read token.", false);
    });
  } else if (session()) signIn(session());
  else signOut("", false);
})();
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
</div>
`;

const page = renderStaticPage({ title: "Plant receiver", style: STYLE, body: BODY, script: SCRIPT });

/** The live page: one static document, no data in it. */
export const PAGE_HTML = page.html;

/** Served with the page (see `renderStaticPage`). */
export const PAGE_HEADERS = page.headers;
