import { renderStaticPage } from "@plant-store/app-shell";
import { PLANT_STORE_WEBHOOKS } from "@plant-store/types";
import { PAGE_SCRIPT_KIT } from "./page-script-kit.js";

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
  #add-url, #move-url { width: 24rem; }
  #subscribe-types { width: 16rem; }
`;

/**
 * The portal's script: the store page's, for one subscriber. Its link arrives in the URL's fragment
 * (`#psl_…`, never sent to a server): it is taken off the address bar at once (so it is not left on
 * screen, nor in a bookmark) and exchanged, once, for a short session (`POST /portal-sessions`), which
 * this tab keeps in sessionStorage and sends as `Authorization: Bearer`; the link is spent. The store
 * scopes every answer to the subscriber the session names, so the script holds no notion of who may see
 * what. "Sign out" ends the session in the store. A 401 means the session ended (expired, signed out,
 * revoked by the store): the page says so and stops asking. Every value from the API goes in through `textContent` after `show()`: the subscriber's name
 * and its URLs are as untrusted as the receivers' answers.
 */
const SCRIPT = String.raw`
(function () {
  "use strict";
${PAGE_SCRIPT_KIT}
  var KEY = "plant-store-portal-credential";
  var POLL_MS = 1000;
  var $ = function (id) { return document.getElementById(id); };
  var expanded = new Set();
  var details = new Map();
  var confirming = new Set();
  var polling = false;
  var ended = false;
  var timer = null;

  function when(iso) { return iso ? new Date(iso).toLocaleString() : "—"; }
  function credential() { return sessionStorage.getItem(KEY); }

  // The link is spent: forget it, stop polling, and say what to do. Nothing else is asked after this.
  function end(message) {
    ended = true;
    sessionStorage.removeItem(KEY);
    clearInterval(timer);
    $("main").hidden = true;
    $("ended").hidden = false;
    $("ended").textContent = message;
    setStatus("ended", "");
  }
  var EXPIRED = "Your portal session has ended (it expired, or the store revoked it): ask the store for a new portal link.";
  var SPENT = "This portal link was already used, has expired or was revoked: ask the store for a new one.";

  function api(method, path, body) {
    if (ended) return Promise.reject(new Error("401"));
    var headers = { authorization: "Bearer " + credential() };
    if (body !== undefined) headers["content-type"] = "application/json";
    return fetch(path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (response) {
        return response.text().then(function (text) {
          var data = text ? JSON.parse(text) : null;
          if (response.status === 401) { end(EXPIRED); throw new Error("401"); }
          if (!response.ok) throw new Error((data && data.message) || "HTTP " + response.status);
          return data;
        });
      });
  }

  function outcome(id, verification) {
    return verification.verified
      ? "Endpoint " + id + " is verified: it receives webhooks."
      : "Endpoint " + id + " is not verified, so it is sent nothing: " + verification.reason;
  }

  function endpointRow(item) {
    var endpoint = item.endpoint;
    var id = endpoint.id;
    var reason = endpoint.status === "disabled" ? endpoint.disabledReason || "disabled" : "";
    var toggle = endpoint.status === "active"
      ? button("Disable", "disable", function (b) { act(b, "POST", "/endpoints/" + id + "/disable"); })
      : button("Enable", "enable", function (b) { act(b, "POST", "/endpoints/" + id + "/enable"); });
    var subscribe = button("Event types", "event-types", function () {
      $("subscribe-endpoint").value = String(id);
      $("subscribe-types").value = (endpoint.eventTypes || []).join(", ");
      $("subscribe-types").focus();
    });
    var move = button("Move", "move", function () {
      $("move-endpoint").value = String(id);
      $("move-url").value = endpoint.url;
      $("move-url").select();
    });
    var rotate = button("Rotate secret", "rotate", function (b) {
      act(b, "POST", "/endpoints/" + id + "/rotate-secret", undefined, function (data) {
        notice("Endpoint " + id + " now signs with " + data.endpoint.secretCount + " secrets. The new one, shown once: " +
          data.secret + " (give it to your receiver; both sign every delivery until the old one is dropped).");
      });
    });
    var verify = button("Verify again", "verify", function (b) {
      act(b, "POST", "/endpoints/" + id + "/verify", undefined, function (data) { notice(outcome(id, data.verification)); });
    });
    var example = button("Send an example", "send-example", function (b) {
      act(b, "POST", "/endpoints/" + id + "/send-example", undefined, function (data) {
        notice("An example New Plant is queued for endpoint " + id + " (webhook id " + data.webhookId + ")" +
          (endpoint.verified ? "." : "; it is sent once the endpoint is verified."));
      });
    });
    // Two clicks, no confirm(): a dialog the page cannot style, and one that scripts dismiss.
    var remove = item.confirming
      ? button("Really remove", "confirm-remove", function (b) {
          act(b, "DELETE", "/endpoints/" + id, undefined, function () {
            confirming.delete(id);
            notice("Endpoint " + id + " removed, with its deliveries.");
          });
        })
      : button("Remove", "remove", function () { confirming.add(id); render(); });
    var verified = endpoint.verified ? "verified" : "unverified";
    return el("tr", { "data-endpoint-id": id, "data-status": endpoint.status, "data-verified": String(endpoint.verified) }, [
      el("td", { text: id }),
      el("td", { className: "wrap url", text: endpoint.url, max: 300 }),
      el("td", {}, [
        el("span", { className: "state state-" + endpoint.status, text: endpoint.status }),
        reason ? el("div", { className: "muted reason", text: reason, max: 300 }) : null,
      ]),
      el("td", {}, [
        el("span", { className: "state verified state-" + verified, text: verified }),
        endpoint.verified ? null : el("div", { className: "muted", text: "sent nothing until verified" }),
      ]),
      el("td", { className: "rate", text: rate(item.health) }),
      el("td", { className: "wrap event-types", text: subscriptions(endpoint.eventTypes), max: 300 }),
      el("td", {}, [toggle, verify, example, subscribe, move, rotate, remove]),
    ]);
  }

  function deliveryRow(delivery) {
    var shown = state(delivery);
    var open = expanded.has(delivery.id);
    var actions = [
      button(open ? "Hide attempts" : "Attempts", "attempts", function () {
        if (expanded.has(delivery.id)) { expanded.delete(delivery.id); details.delete(delivery.id); }
        else expanded.add(delivery.id);
        render();
        poll();
      }),
    ];
    if (delivery.status === "failed" || shown === "retrying")
      actions.push(button(shown === "failed" ? "Retry" : "Retry now", "retry", function (b) {
        expanded.add(delivery.id);
        act(b, "POST", "/deliveries/" + delivery.id + "/retry");
      }));
    var answer = delivery.lastStatus !== null ? "HTTP " + delivery.lastStatus : "";
    if (delivery.lastError) answer += (answer ? " · " : "") + delivery.lastError;
    return el("tr", { "data-delivery-id": delivery.id, "data-status": shown }, [
      el("td", { text: delivery.id }),
      el("td", { className: "wrap", text: delivery.webhookId }),
      el("td", { text: delivery.endpointId }),
      el("td", { className: "event-type", text: delivery.eventType === null ? "—" : delivery.eventType }),
      el("td", {}, [
        el("span", { className: "state state-" + shown, text: shown }),
        shown === "retrying" ? el("div", { className: "muted next", text: "next " + when(delivery.nextAttemptAt) }) : null,
      ]),
      el("td", { className: "attempts", text: delivery.attempts }),
      el("td", { className: "wrap last", text: answer || "—", max: 300 }),
      el("td", { className: "muted", text: when(delivery.updatedAt) }),
      el("td", {}, actions),
    ]);
  }

  function attemptsRow(delivery) {
    var attempts = (details.get(delivery.id) || {}).attempts;
    var body = el("tbody");
    (attempts || []).forEach(function (attempt) {
      body.appendChild(el("tr", { className: "attempt", "data-attempt": attempt.attempt, "data-status": attempt.status === null ? "none" : attempt.status }, [
        el("td", { text: attempt.attempt }),
        el("td", { text: when(attempt.startedAt) }),
        el("td", { className: "attempt-status", text: attempt.status === null ? "no answer" : attempt.status }),
        el("td", { text: attempt.durationMs + " ms" }),
        el("td", { text: attempt.outcome }),
        el("td", { className: "wrap attempt-error", text: attempt.error || "—", max: 500 }),
        el("td", { className: "wrap" }, [el("pre", { className: "answer", text: attempt.responseBody, max: 1024 })]),
      ]));
    });
    var table = el("table", {}, [
      el("thead", {}, [el("tr", {}, ["#", "Started", "Status", "Latency", "Outcome", "Error", "Answer (first bytes)"].map(function (h) { return el("th", { text: h }); }))]),
      body,
    ]);
    return el("tr", { className: "details", "data-details-for": delivery.id }, [
      el("td", { colspan: 9 }, [attempts ? (attempts.length ? table : el("span", { className: "muted", text: "No attempt yet." })) : el("span", { className: "muted", text: "Loading…" })]),
    ]);
  }

  var latest = { endpoints: [], health: [], deliveries: [] };

  function render() {
    var health = new Map(latest.health.map(function (h) { return [h.endpointId, h]; }));
    sync($("endpoints"), latest.endpoints.map(function (endpoint) {
      return { endpoint: endpoint, health: health.get(endpoint.id) || null, confirming: confirming.has(endpoint.id) };
    }), function (item) { return "e" + item.endpoint.id; }, endpointRow);
    $("no-endpoints").hidden = latest.endpoints.length > 0;
    var rows = [];
    latest.deliveries.forEach(function (delivery) {
      rows.push({ kind: "delivery", delivery: delivery, open: expanded.has(delivery.id) });
      if (expanded.has(delivery.id)) rows.push({ kind: "details", delivery: delivery, details: details.get(delivery.id) || null });
    });
    sync($("deliveries"), rows, function (row) { return row.kind + "-" + row.delivery.id; },
      function (row) { return row.kind === "delivery" ? deliveryRow(row.delivery) : attemptsRow(row.delivery); });
    $("no-deliveries").hidden = latest.deliveries.length > 0;
    chooseEndpoint($("replay-endpoint"));
    chooseEndpoint($("subscribe-endpoint"));
    chooseEndpoint($("move-endpoint"));
  }

  function poll() {
    if (ended || !credential() || polling) return Promise.resolve();
    polling = true;
    var filter = $("filter").value;
    return Promise.all([
      api("GET", "/endpoints"),
      api("GET", "/endpoint-health"),
      api("GET", "/deliveries?limit=50" + (filter ? "&status=" + encodeURIComponent(filter) : "")),
    ])
      .then(function (answers) {
        latest = { endpoints: answers[0].endpoints, health: answers[1].endpoints, deliveries: answers[2].deliveries };
        var shown = new Set(latest.deliveries.map(function (d) { return d.id; }));
        return Promise.all(Array.from(expanded).filter(function (id) { return shown.has(id); }).map(function (id) {
          return api("GET", "/deliveries/" + id).then(function (data) { details.set(id, data); });
        }));
      })
      .then(function () {
        render();
        setStatus("live", "Live: refreshed " + new Date().toLocaleTimeString() + " (every " + POLL_MS / 1000 + " s).");
      })
      .catch(function (error) { if (error.message !== "401") setStatus("error", "Could not refresh: " + error.message); })
      .finally(function () { polling = false; });
  }

  $("filter").addEventListener("change", poll);
  $("add").addEventListener("submit", function (event) {
    event.preventDefault();
    act($("add-button"), "POST", "/endpoints", { url: $("add-url").value, token: $("add-token").value }, function (data) {
      $("add-url").value = "";
      $("add-token").value = "";
      notice("Endpoint " + data.endpoint.id + " added. Its signing secret, shown once (give it to your receiver): " + data.secret +
        "\n" + (data.verification ? outcome(data.endpoint.id, data.verification) : ""));
    });
  });
  $("subscribe").addEventListener("submit", function (event) {
    event.preventDefault();
    var id = $("subscribe-endpoint").value;
    var types = $("subscribe-types").value.split(",").map(function (type) { return type.trim(); })
      .filter(function (type) { return type !== ""; });
    act($("subscribe-button"), "PATCH", "/endpoints/" + id, { eventTypes: types.length ? types : null }, function (data) {
      notice("Endpoint " + id + " now receives " + (data.endpoint.eventTypes === null ? "every event type" : data.endpoint.eventTypes.join(", ")) + ".");
    });
  });
  // The store checks the new URL as it checks a new endpoint's, and says why it refuses one. A moved
  // endpoint is unverified: the store sends nothing to the new URL until it answers the handshake, so
  // the notice says so and offers that handshake at once (the receiver may already run there).
  $("move").addEventListener("submit", function (event) {
    event.preventDefault();
    var id = $("move-endpoint").value;
    act($("move-button"), "PATCH", "/endpoints/" + id, { url: $("move-url").value }, function (data) {
      $("move-url").value = "";
      if (data.endpoint.verified) { notice("Endpoint " + id + " moved to " + data.endpoint.url + "."); return; }
      notice("Endpoint " + id + " moved to " + data.endpoint.url + ". It is unverified now, so it is sent nothing " +
        "(deliveries already queued wait) until the new URL answers the store's handshake. Once your receiver runs there: ");
      $("notice").appendChild(button("Verify now", "verify-moved", function (b) {
        act(b, "POST", "/endpoints/" + id + "/verify", undefined, function (result) { notice(outcome(id, result.verification)); });
      }));
    });
  });
  $("replay").addEventListener("submit", function (event) {
    event.preventDefault();
    var since = new Date($("replay-since").value);
    if (isNaN(since.getTime())) { notice("Choose the time to replay from."); return; }
    var id = $("replay-endpoint").value;
    act($("replay-button"), "POST", "/replay", { endpointId: Number(id), since: since.toISOString() }, function (data) {
      notice("Replay queued " + data.queued + " deliveries to endpoint " + id + ".");
    });
  });

  // A new link pasted into this tab changes only the fragment, which loads nothing: start again with it.
  window.addEventListener("hashchange", function () { location.reload(); });
  // The link's credential: into this tab's storage, out of the address bar before anything else runs.
  var fragment = location.hash.slice(1);
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
  // A subscriber's token lasts until rotated, and the browser's history has kept the link already:
  // refused, like the store page's #token= links. A portal link expires; that is what a link is for.
  if (fragment.indexOf("pss_") === 0) {
    end("Links carrying a subscriber token are refused: a browser keeps them in its history. Ask the store for a portal link, and have the token rotated.");
    return;
  }
  // A link is spent on a session at once; a reload of this tab keeps the session, not the link.
  function signIn() {
    if (fragment.indexOf("psl_") !== 0) return Promise.resolve();
    return fetch("/portal-sessions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ link: fragment }),
    }).then(function (response) {
      return response.json().then(function (data) {
        if (response.status !== 201) { end(response.status === 401 ? SPENT : data.message || "HTTP " + response.status); throw new Error("401"); }
        sessionStorage.setItem(KEY, data.session);
      });
    });
  }
  $("sign-out").addEventListener("click", function () {
    act($("sign-out"), "DELETE", "/portal-sessions/current", undefined, function () {
      end("You signed out: this portal session has ended. Open a new portal link from the store to come back.");
    });
  });
  if (!fragment && !credential()) { end("Open this page through the portal link the store gave you."); return; }
  setStatus("connecting", "Loading…");
  signIn()
    .then(function () { return api("GET", "/me"); })
    .then(function (me) {
      $("who").textContent = show(me.kind === "subscriber" ? me.subscriber.name : "the store's operator", 200);
      $("main").hidden = false;
      poll();
      timer = setInterval(poll, POLL_MS);
    })
    .catch(function (error) { if (error.message !== "401") setStatus("error", "Could not load: " + error.message); });
})();
`;

/** The contract's event types, escaped although their characters need none: markup is never built from text. */
const EVENT_TYPES = PLANT_STORE_WEBHOOKS.eventTypes.map((type) =>
  type.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`),
);

const BODY = `
<h1>Plant Store webhooks</h1>
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
  <form id="subscribe">
    Endpoint <select id="subscribe-endpoint"></select>
    receives <input id="subscribe-types" type="text" autocomplete="off" placeholder="every event type">
    <button type="submit" id="subscribe-button">Save</button>
    <span class="muted">Event types, comma-separated (${EVENT_TYPES.join(", ")}; a trailing * matches a prefix); empty: every event type.</span>
  </form>
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

const page = renderStaticPage({ title: "Plant Store webhooks", style: STYLE, body: BODY, script: SCRIPT });

/** A subscriber's portal (`GET /portal#psl_…`): one static document, no data in it. */
export const PORTAL_PAGE_HTML = page.html;

/** Served with the page (see `renderStaticPage`). */
export const PORTAL_PAGE_HEADERS = page.headers;
