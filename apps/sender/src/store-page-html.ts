import { renderStaticPage } from "@plant-store/app-shell";
import { PLANT_STORE_WEBHOOKS } from "@plant-store/types";
import { PAGE_SCRIPT_KIT } from "./page-script-kit.js";

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

/**
 * The store page's script. It holds no data of its own, and never keeps the admin token: it exchanges
 * a single-use sign-in code from a `#code=` link (a fragment, which browsers never send to the server),
 * or the token typed into its form, for a session (`POST /sessions`), keeps the session in this tab's
 * sessionStorage, and polls the admin JSON API with `Authorization: Bearer <session>`. Rows are keyed by id and
 * replaced only when their data changed, so buttons stay put between polls. Every value from the API
 * goes in through `textContent` after `show()`, which makes control characters visible: endpoint URLs,
 * reasons, errors and above all the receivers' answers are untrusted text.
 */
const SCRIPT = `
(function () {
  "use strict";
${PAGE_SCRIPT_KIT}
  var KEY = "plant-store-session";
  var POLL_MS = 1000;
  var $ = function (id) { return document.getElementById(id); };
  var expanded = new Set();
  var details = new Map();
  var polling = false;
  var timer = null;

  function when(iso) { return iso ? new Date(iso).toLocaleString() : "—"; }
  function session() { return sessionStorage.getItem(KEY); }

  function api(method, path, body) {
    var headers = { authorization: "Bearer " + session() };
    if (body !== undefined) headers["content-type"] = "application/json";
    return fetch(path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (response) {
        return response.text().then(function (text) {
          var data = text ? JSON.parse(text) : null;
          if (response.status === 401) { signOut("Your session has ended; sign in again.", false); throw new Error("401"); }
          if (!response.ok) throw new Error((data && data.message) || "HTTP " + response.status);
          return data;
        });
      });
  }

  function endpointRow(item) {
    var endpoint = item.endpoint;
    var health = item.health;
    var reason = endpoint.status === "disabled" ? endpoint.disabledReason || "disabled by an operator" : "";
    var toggle = endpoint.status === "active"
      ? button("Disable", "disable", function (b) { act(b, "POST", "/endpoints/" + endpoint.id + "/disable"); })
      : button("Enable", "enable", function (b) { act(b, "POST", "/endpoints/" + endpoint.id + "/enable"); });
    var subscribe = button("Event types", "event-types", function () {
      $("subscribe-endpoint").value = String(endpoint.id);
      $("subscribe-types").value = (endpoint.eventTypes || []).join(", ");
      $("subscribe-types").focus();
    });
    var move = button("Move", "move", function () {
      $("move-endpoint").value = String(endpoint.id);
      $("move-url").value = endpoint.url;
      $("move-url").select();
    });
    var rotate = button("Rotate secret", "rotate", function (b) {
      act(b, "POST", "/endpoints/" + endpoint.id + "/rotate-secret", undefined, function (data) {
        notice("Endpoint " + endpoint.id + " now signs with " + data.endpoint.secretCount + " secrets. The new one, shown once: " +
          data.secret + " (give it to the receiver, then drop the old ones with pnpm sender endpoints set-secrets or PATCH /endpoints/" + endpoint.id + ").");
      });
    });
    // A subscriber's endpoint is sent nothing until its server answers the handshake.
    var verify = endpoint.verified ? null : button("Verify again", "verify", function (b) {
      act(b, "POST", "/endpoints/" + endpoint.id + "/verify", undefined, function (data) {
        notice(data.verification.verified
          ? "Endpoint " + endpoint.id + " answered the handshake: it receives webhooks from now on."
          : "Endpoint " + endpoint.id + " is still unverified: " + data.verification.message);
      });
    });
    return el("tr", { "data-endpoint-id": endpoint.id, "data-status": endpoint.status, "data-verified": String(endpoint.verified) }, [
      el("td", { text: endpoint.id }),
      el("td", { className: "wrap", text: endpoint.url, max: 300 }, [
        endpoint.subscriberId === null ? null : el("div", { className: "muted owner", text: "subscriber " + endpoint.subscriberId }),
      ]),
      el("td", {}, [
        el("span", { className: "state state-" + endpoint.status, text: endpoint.status }),
        endpoint.verified ? null : el("span", { className: "state state-unverified", text: "unverified" }),
        endpoint.rateLimit === null ? null : el("div", { className: "muted rate-limit", text: "at most " + endpoint.rateLimit + "/s" }),
        reason ? el("div", { className: "muted reason", text: reason, max: 300 }) : null,
      ]),
      el("td", { className: "failing", text: endpoint.failingSince ? when(endpoint.failingSince) : "—" }),
      el("td", { className: "rate", text: rate(health) }),
      el("td", { text: endpoint.secretCount }),
      el("td", { className: "wrap event-types", text: subscriptions(endpoint.eventTypes), max: 300 }),
      el("td", {}, [verify, toggle, subscribe, move, rotate]),
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
      el("td", { text: delivery.plantId === null ? "—" : "#" + delivery.plantId }),
      el("td", { text: delivery.endpointId }),
      el("td", { className: "event-type", text: delivery.eventType === null ? "—" : delivery.eventType }),
      el("td", {}, [
        el("span", { className: "state state-" + shown, text: shown }),
        shown === "retrying" ? el("div", { className: "muted next", text: "next " + when(delivery.nextAttemptAt) }) : null,
      ]),
      el("td", { text: delivery.attempts }),
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
      el("td", { colspan: 10 }, [attempts ? (attempts.length ? table : el("span", { className: "muted", text: "No attempt yet." })) : el("span", { className: "muted", text: "Loading…" })]),
    ]);
  }

  var latest = { endpoints: [], health: [], deliveries: [] };

  function render() {
    var health = new Map(latest.health.map(function (h) { return [h.endpointId, h]; }));
    sync($("endpoints"), latest.endpoints.map(function (endpoint) { return { endpoint: endpoint, health: health.get(endpoint.id) || null }; }),
      function (item) { return "e" + item.endpoint.id; }, endpointRow);
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
    chooseEndpoint($("rate-endpoint"));
    chooseEndpoint($("move-endpoint"));
  }

  // ---- Last hour charts (GET /delivery-stats) ----
  // Drawn as SVG with DOM calls only (createElementNS, setAttribute, textContent): no markup from data,
  // no style attributes (the page's CSP allows only its own stylesheet; classes carry the colours).
  var SVG_NS = "http://www.w3.org/2000/svg";
  var chartsShown = null;
  function svgEl(tag, attrs, children) {
    var node = document.createElementNS(SVG_NS, tag);
    if (attrs) Object.keys(attrs).forEach(function (name) {
      if (name === "text") node.textContent = show(attrs.text);
      else node.setAttribute(name, String(attrs[name]));
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }
  function clock(iso) { return new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }); }
  function percent(rate) { return Math.round(rate * 1000) / 10 + " %"; }

  // Stacked bars, one slot per minute (the API answers every minute of the window): succeeded at the
  // bottom, failed above; the left axis runs from 0 to the busiest minute. Over them, each minute's
  // success rate (minutes with attempts only) against the right axis, 0 to 100 %.
  function perMinuteChart(stats) {
    var W = 720, H = 200, left = 44, right = 40, top = 10, bottom = 34;
    var plotW = W - left - right, plotH = H - top - bottom;
    var minutes = stats.minutes;
    var most = minutes.reduce(function (m, minute) { return Math.max(m, minute.attempts); }, 0);
    var slot = plotW / minutes.length;
    var scale = most === 0 ? 0 : plotH / most;
    var chart = svgEl("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-labelledby": "per-minute-title", "data-max": most }, [
      svgEl("title", { id: "per-minute-title", text: "Deliveries per minute, last " + stats.windowMinutes + " minutes: " +
        stats.attempts + " attempts, " + stats.succeeded + " succeeded, " + (stats.attempts - stats.succeeded) + " failed" }),
      svgEl("line", { "class": "chart-axis", x1: left, y1: top + plotH, x2: left + plotW, y2: top + plotH }),
      svgEl("line", { "class": "chart-axis", x1: left, y1: top, x2: left, y2: top + plotH }),
      svgEl("text", { "class": "chart-label y-max", x: left - 4, y: top + 8, "text-anchor": "end", text: most }),
      svgEl("text", { "class": "chart-label", x: left - 4, y: top + plotH, "text-anchor": "end", text: "0" }),
      svgEl("text", { "class": "chart-label", x: 10, y: top + plotH / 2, "text-anchor": "middle",
        transform: "rotate(-90 10 " + (top + plotH / 2) + ")", text: "attempts / min" }),
      svgEl("text", { "class": "chart-label", x: left + plotW / 2, y: H - 2, "text-anchor": "middle", text: "minute (local time)" }),
      svgEl("line", { "class": "chart-axis", x1: left + plotW, y1: top, x2: left + plotW, y2: top + plotH }),
      svgEl("text", { "class": "chart-label", x: left + plotW + 4, y: top + 8, text: "100 %" }),
      svgEl("text", { "class": "chart-label", x: left + plotW + 4, y: top + plotH, text: "0 %" }),
    ]);
    var rates = [];
    minutes.forEach(function (minute, index) {
      var x = left + index * slot;
      var ok = minute.succeeded * scale, failed = minute.failed * scale;
      var bar = svgEl("g", { "class": "minute", "data-start": minute.start, "data-attempts": minute.attempts,
        "data-succeeded": minute.succeeded, "data-failed": minute.failed }, [
        svgEl("title", { text: clock(minute.start) + ": " + (minute.attempts
          ? minute.attempts + " attempts, " + minute.succeeded + " succeeded, " + minute.failed + " failed"
          : "no attempts") }),
        // A transparent slot the height of the plot, so every minute has something to hover.
        svgEl("rect", { x: x, y: top, width: slot, height: plotH, fill: "transparent" }),
        minute.succeeded ? svgEl("rect", { "class": "bar-succeeded", x: x + 1, y: top + plotH - ok, width: Math.max(slot - 2, 1), height: ok }) : null,
        minute.failed ? svgEl("rect", { "class": "bar-failed", x: x + 1, y: top + plotH - ok - failed, width: Math.max(slot - 2, 1), height: failed }) : null,
      ]);
      chart.appendChild(bar);
      if (minute.attempts) rates.push({ minute: minute, x: x + slot / 2, y: top + plotH * (1 - minute.succeeded / minute.attempts) });
      // A time under every 15th minute and the last.
      if (index % 15 === 0 || index === minutes.length - 1)
        chart.appendChild(svgEl("text", { "class": "chart-label x-tick", x: x + slot / 2, y: top + plotH + 14, "text-anchor": "middle", text: clock(minute.start) }));
    });
    // Drawn last, over the bars; a point per minute, so a lone minute still shows.
    chart.appendChild(svgEl("g", { "class": "success-rate-line" }, [
      svgEl("title", { text: "Success rate per minute" }),
      rates.length > 1 ? svgEl("polyline", { "class": "rate-line", points: rates.map(function (p) { return p.x + "," + p.y; }).join(" ") }) : null,
    ].concat(rates.map(function (p) {
      return svgEl("circle", { "class": "rate-point", cx: p.x, cy: p.y, r: 2.5, "data-start": p.minute.start }, [
        svgEl("title", { text: clock(p.minute.start) + ": " + percent(p.minute.succeeded / p.minute.attempts) + " succeeded" }),
      ]);
    }))));
    return chart;
  }

  // p50 and p95 of one endpoint as two bars against the slowest p95 shown.
  function latencyBars(entry, slowest) {
    var W = 200, H = 16;
    var width = function (ms) { return slowest === 0 ? 0 : Math.max((ms / slowest) * W, 1); };
    return svgEl("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": "p50 " + entry.p50Ms + " ms, p95 " + entry.p95Ms + " ms" }, [
      svgEl("title", { text: "Endpoint " + entry.endpointId + ": p50 " + entry.p50Ms + " ms, p95 " + entry.p95Ms + " ms" }),
      svgEl("rect", { "class": "latency-p95", x: 0, y: 2, width: width(entry.p95Ms), height: 12 }),
      svgEl("rect", { "class": "latency-p50", x: 0, y: 5, width: width(entry.p50Ms), height: 6 }),
    ]);
  }

  function latencyRow(item) {
    var entry = item.entry;
    return el("tr", { "data-latency-endpoint": entry.endpointId }, [
      el("td", { text: entry.endpointId }),
      el("td", { className: "latency-attempts", text: entry.attempts }),
      el("td", { className: "p50", text: entry.p50Ms + " ms" }),
      el("td", { className: "p95", text: entry.p95Ms + " ms" }),
      el("td", { className: "latency-bars" }, [latencyBars(entry, item.slowest)]),
    ]);
  }

  function drawCharts(stats) {
    // Redrawn only when the numbers changed (until moves every poll; the buckets rarely do).
    var shown = JSON.stringify([stats.minutes, stats.endpoints]);
    if (shown === chartsShown) return;
    chartsShown = shown;
    $("success-rate").dataset.rate = stats.successRate === null ? "" : String(stats.successRate);
    $("success-rate").textContent = stats.successRate === null ? "Success rate: no attempts in the last hour."
      : "Success rate: " + percent(stats.successRate) + " (" + stats.succeeded + " of " + stats.attempts + " attempts succeeded, " +
        (stats.attempts - stats.succeeded) + " failed)";
    $("per-minute").replaceChildren(perMinuteChart(stats));
    var slowest = stats.endpoints.reduce(function (m, entry) { return Math.max(m, entry.p95Ms); }, 0);
    sync($("latency"), stats.endpoints.map(function (entry) { return { entry: entry, slowest: slowest }; }),
      function (item) { return "l" + item.entry.endpointId; }, latencyRow);
    $("no-latency").hidden = stats.endpoints.length > 0;
  }

  function refreshCharts() {
    return api("GET", "/delivery-stats?windowMinutes=60").then(drawCharts);
  }
  // ---- end of the last hour charts ----

  function poll() {
    if (!session()) return Promise.resolve();
    if (polling) return Promise.resolve();
    polling = true;
    var filter = $("filter").value;
    var eventType = $("event-type-filter").value;
    return Promise.all([
      api("GET", "/endpoints"),
      api("GET", "/endpoint-health"),
      api("GET", "/deliveries?limit=50" + (filter ? "&status=" + encodeURIComponent(filter) : "") +
        (eventType ? "&eventType=" + encodeURIComponent(eventType) : "")),
      refreshCharts(),
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

  // A sign-in code or the admin token, posted (never in a URL), for a session of this tab.
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
    setStatus("connecting", "Loading…");
    poll();
    clearInterval(timer);
    timer = setInterval(poll, POLL_MS);
  }
  function signOut(message, end) {
    var ended = session();
    if (end && ended) fetch("/sessions/current", { method: "DELETE", headers: { authorization: "Bearer " + ended } }).catch(function () {});
    sessionStorage.removeItem(KEY);
    clearInterval(timer);
    $("main").hidden = true;
    $("login").hidden = false;
    $("login-message").textContent = show(message || "");
    setStatus("signed-out", "Signed out.");
  }

  $("login").addEventListener("submit", function (event) {
    event.preventDefault();
    var value = $("token").value;
    $("token").value = "";
    if (!value) return;
    exchange({ token: value }).then(signIn, function (error) { signOut(error.message, false); });
  });
  $("sign-out").addEventListener("click", function () { signOut("", true); });
  $("filter").addEventListener("change", poll);
  $("event-type-filter").addEventListener("change", poll);
  // Comma-separated; nothing at all: every event type (null). The store checks each against its contract.
  $("subscribe").addEventListener("submit", function (event) {
    event.preventDefault();
    var id = $("subscribe-endpoint").value;
    var types = $("subscribe-types").value.split(",").map(function (type) { return type.trim(); })
      .filter(function (type) { return type !== ""; });
    act($("subscribe-button"), "PATCH", "/endpoints/" + id, { eventTypes: types.length ? types : null }, function (data) {
      notice("Endpoint " + id + " now receives " + (data.endpoint.eventTypes === null ? "every event type" : data.endpoint.eventTypes.join(", ")) + ".");
    });
  });
  // A whole number of deliveries a second; empty: no limit (null). The store checks the range.
  $("rate").addEventListener("submit", function (event) {
    event.preventDefault();
    var id = $("rate-endpoint").value;
    var text = $("rate-limit").value.trim();
    act($("rate-button"), "PATCH", "/endpoints/" + id, { rateLimit: text === "" ? null : Number(text) }, function (data) {
      notice(data.endpoint.rateLimit === null
        ? "Endpoint " + id + " has no rate limit."
        : "Endpoint " + id + " is sent at most " + data.endpoint.rateLimit + " deliveries a second.");
    });
  });
  // The store checks the new URL as it checks a new endpoint's, and says why it refuses one. A
  // subscriber's endpoint comes back unverified: its new URL has asked for nothing yet.
  $("move").addEventListener("submit", function (event) {
    event.preventDefault();
    var id = $("move-endpoint").value;
    act($("move-button"), "PATCH", "/endpoints/" + id, { url: $("move-url").value }, function (data) {
      $("move-url").value = "";
      notice("Endpoint " + id + " moved to " + data.endpoint.url + (data.endpoint.verified
        ? "; its next attempts go there."
        : "; it is unverified now and sent nothing until the new URL answers the handshake (Verify again, on its row)."));
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

  // ---- Alerts block: its own poll and list, apart from the tables (and the charts beside them). ----
  // The last day's alerts, newest first (GET /alerts): the same events the worker logs and queues as
  // operational webhooks. The list is rebuilt only when the alerts changed.
  var alertsShown = null;
  function alertText(alert) {
    if (alert.type === "endpoint.disabled") return alert.reason;
    if (alert.type === "endpoint.recovered") return "answered " + alert.lastStatus + " after failing since " + when(alert.failingSince);
    if (alert.type === "delivery.failed") return "delivery " + alert.deliveryId + " (" + (alert.eventType || "untyped") + ") failed after " + alert.attempts + " attempt(s), last answer " + (alert.lastStatus === null ? alert.lastError : alert.lastStatus);
    return "last answer " + (alert.lastStatus === null ? alert.lastError : alert.lastStatus);
  }
  function alertItem(entry) {
    var alert = entry.alert;
    return el("li", { "data-alert-type": alert.type, "data-endpoint-id": alert.endpointId }, [
      el("span", { className: "muted", text: when(alert.at) + " " }),
      el("span", { className: "state state-" + String(alert.type).replace(".", "-"), text: alert.type }),
      el("span", { text: " #" + alert.endpointId + " " + alert.url, max: 120 }),
      el("span", { className: "muted", text: " — " + alertText(alert), max: 300 }),
    ]);
  }
  function refreshAlerts() {
    if (!session() || $("main").hidden) return;
    api("GET", "/alerts?limit=20").then(function (data) {
      var key = JSON.stringify(data.alerts);
      if (key === alertsShown) return;
      alertsShown = key;
      $("alerts").replaceChildren.apply($("alerts"), data.alerts.map(alertItem));
      $("no-alerts").hidden = data.alerts.length > 0;
    }).catch(function () {});
  }
  setInterval(refreshAlerts, POLL_MS);
  // ---- End of the alerts block. ----

  // A sign-in link (#code=…): the code is taken off the address bar at once and spent on a session.
  // A link carrying the admin token itself is refused: the browser's history has kept it already.
  var fragment = new URLSearchParams(location.hash.slice(1));
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
  if (fragment.get("code")) {
    exchange({ code: fragment.get("code") }).then(signIn, function (error) {
      signOut("This sign-in link cannot be used (" + error.message + "); ask for a new one or enter the admin token.", false);
    });
  } else if (fragment.get("token")) {
    signOut("Links carrying the admin token are refused: a browser keeps them in its history. Enter the token here, or open a sign-in link (POST /login-codes).", false);
  } else if (session()) signIn(session());
  else signOut("", false);
})();
`;

/**
 * The store's event types, written into the page (they are the contract's, not data). Escaped although
 * an event type's characters (letters, digits, `_ . : / -`) need none: markup is never built from text.
 */
const EVENT_TYPES = PLANT_STORE_WEBHOOKS.eventTypes.map((type) =>
  type.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`),
);

const BODY = `
<h1>Plant Store</h1>
<p id="status" data-state="signed-out"></p>
<form id="login" hidden>
  <label>Admin token <input id="token" type="password" autocomplete="off" required></label>
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
  <form id="subscribe">
    Endpoint <select id="subscribe-endpoint"></select>
    receives <input id="subscribe-types" type="text" autocomplete="off" placeholder="every event type">
    <button type="submit" id="subscribe-button">Save</button>
    <span class="muted">Event types, comma-separated (this store's: ${EVENT_TYPES.join(", ")}; a trailing * matches a prefix); empty: every event type.</span>
  </form>
  <form id="rate">
    Endpoint <select id="rate-endpoint"></select>
    at most <input id="rate-limit" type="number" min="1" max="10000" step="1" placeholder="no limit"> deliveries a second
    <button type="submit" id="rate-button">Save</button>
    <span class="muted">By every worker together, at most a second's worth at once; empty: no limit.</span>
  </form>
  <form id="move">
    Endpoint <select id="move-endpoint"></select>
    moves to <input id="move-url" type="url" autocomplete="off" required placeholder="https://…">
    <button type="submit" id="move-button">Save</button>
    <span class="muted">Keeps its id, secrets and deliveries; the next attempt goes to the new URL. A subscriber's endpoint then needs the handshake again.</span>
  </form>
  <form id="replay">
    Replay to endpoint <select id="replay-endpoint"></select>
    every plant since <input id="replay-since" type="datetime-local" step="1">
    <button type="submit" id="replay-button">Replay</button>
  </form>
  <h2>Deliveries <select id="filter" aria-label="Status">
    <option value="">all</option><option value="pending">pending or retrying</option>
    <option value="failed">failed</option><option value="delivered">delivered</option>
  </select> <select id="event-type-filter" aria-label="Event type">
    <option value="">all event types</option>${EVENT_TYPES.map((type) => `<option value="${type}">${type}</option>`).join("")}
  </select></h2>
  <table>
    <thead><tr><th>Id</th><th>Webhook id</th><th>Plant</th><th>Endpoint</th><th>Event type</th><th>State</th><th>Attempts</th><th>Last answer</th><th>Updated</th><th></th></tr></thead>
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

const page = renderStaticPage({ title: "Plant Store", style: STYLE, body: BODY, script: SCRIPT });

/** The store page: one static document, no data in it. */
export const STORE_PAGE_HTML = page.html;

/** Served with the page (see `renderStaticPage`). */
export const STORE_PAGE_HEADERS = page.headers;
