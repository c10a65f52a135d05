/**
 * The store page's script. It holds no data of its own, and never keeps the operator token: it exchanges
 * a single-use sign-in code from a `#code=` link (a fragment, which browsers never send to the server),
 * or the token typed into its form, for a session (`POST /sessions`), keeps the session in this tab's
 * sessionStorage, and polls the admin JSON API with `Authorization: Bearer <session>`. Rows are keyed by
 * id and replaced only when their data changed, so buttons stay put between polls. Every value from the
 * API goes in through `textContent` after `show()`, which makes control characters visible: endpoint
 * URLs, reasons, errors and above all the receivers' answers are untrusted text.
 */
import {
  button,
  byId,
  createAct,
  createApi,
  el,
  exchange,
  fieldValue,
  notice,
  SIGNED_OUT,
  setStatus,
  show,
  syncRows,
  tabSession,
} from "@plant-store/app-shell/page-kit";
import type { Delivery, Endpoint, Health, Latest, Verification } from "./api-types.js";
import { chooseEndpoint } from "./choose-endpoint.js";
import { createDeliveryTable } from "./delivery-table.js";
import { endpointButtons } from "./endpoint-buttons.js";
import { bindFilterForm, bindReplayForm, bindSubscribeForm } from "./endpoint-forms.js";
import { endpointNotes } from "./endpoint-notes.js";
import { rate, subscriptions, when } from "./formats.js";
import { createChartsView, type DeliveryStats } from "./svg-charts.js";

const POLL_MS = 1000;
const session = tabSession("plant-store-session");
let latest: Latest = { endpoints: [], health: [], deliveries: [] };
let polling = false;
let timer: ReturnType<typeof setInterval> | undefined;

/**
 * Where the API is mounted: the page is served at its root (`/`, or `/webhooks/` under Express's
 * `app.use("/webhooks", …)`), and calls the API on paths below it.
 */
const BASE = location.pathname.replace(/\/+$/, "");
const api = createApi({
  base: BASE,
  session: session.get,
  onSignedOut: () => signOut("Your session has ended; sign in again.", false),
});
const act = createAct(api, () => poll());
const deliveries = createDeliveryTable({ act, render, poll: () => poll() });
const drawCharts = createChartsView({
  successRate: byId("success-rate"),
  perMinute: byId("per-minute"),
  latency: byId("latency"),
  noLatency: byId("no-latency"),
});

function endpointRow(item: { endpoint: Endpoint; health: Health | null }): HTMLElement {
  const endpoint = item.endpoint;
  const id = endpoint.id;
  const reason = endpoint.status === "disabled" ? endpoint.disabledReason || "disabled by an operator" : "";
  const { toggle, subscribe, filter, move, rotate } = endpointButtons(
    endpoint,
    act,
    `(give it to the receiver, then drop the old ones with pnpm sender endpoints set-secrets or PATCH /endpoints/${id}).`,
  );
  // A subscriber's endpoint is sent nothing until its server answers the handshake.
  const verify = endpoint.verified
    ? null
    : button("Verify again", "verify", (b) =>
        act<{ verification: Verification }>(b, "POST", `/endpoints/${id}/verify`, undefined, (data) =>
          notice(
            data.verification.verified
              ? `Endpoint ${id} answered the handshake: it receives webhooks from now on.`
              : `Endpoint ${id} is still unverified: ${data.verification.message}`,
          ),
        ),
      );
  return el(
    "tr",
    { "data-endpoint-id": id, "data-status": endpoint.status, "data-verified": endpoint.verified },
    [
      el("td", { text: id }),
      el("td", { className: "wrap", text: endpoint.url, max: 300 }, [
        endpoint.subscriberId === null
          ? null
          : el("div", { className: "muted owner", text: `subscriber ${endpoint.subscriberId}` }),
      ]),
      el("td", {}, [
        el("span", { className: `state state-${endpoint.status}`, text: endpoint.status }),
        endpoint.verified ? null : el("span", { className: "state state-unverified", text: "unverified" }),
        endpoint.rateLimit === null
          ? null
          : el("div", { className: "muted rate-limit", text: `at most ${endpoint.rateLimit}/s` }),
        reason ? el("div", { className: "muted reason", text: reason, max: 300 }) : null,
      ]),
      el("td", { className: "failing", text: endpoint.failingSince ? when(endpoint.failingSince) : "—" }),
      el("td", { className: "rate", text: rate(item.health) }),
      el("td", { text: endpoint.secretCount }),
      el(
        "td",
        { className: "wrap event-types", text: subscriptions(endpoint.eventTypes), max: 300 },
        endpointNotes(endpoint),
      ),
      el("td", {}, [verify, toggle, subscribe, filter, move, rotate]),
    ],
  );
}

function render(): void {
  const health = new Map(latest.health.map((h) => [h.endpointId, h]));
  syncRows(
    byId("endpoints"),
    latest.endpoints.map((endpoint) => ({ endpoint, health: health.get(endpoint.id) ?? null })),
    (item) => `e${item.endpoint.id}`,
    endpointRow,
  );
  byId("no-endpoints").hidden = latest.endpoints.length > 0;
  deliveries.sync(byId("deliveries"), latest.deliveries);
  byId("no-deliveries").hidden = latest.deliveries.length > 0;
  for (const id of [
    "replay-endpoint",
    "subscribe-endpoint",
    "endpoint-filter-endpoint",
    "rate-endpoint",
    "move-endpoint",
  ])
    chooseEndpoint(byId<HTMLSelectElement>(id), latest.endpoints);
}

async function poll(): Promise<void> {
  if (!session.get() || polling) return;
  polling = true;
  const filter = fieldValue("filter");
  const eventType = fieldValue("event-type-filter");
  try {
    const [endpoints, health, recent] = await Promise.all([
      api<{ endpoints: Endpoint[] }>("GET", "/endpoints"),
      api<{ endpoints: Health[] }>("GET", "/endpoint-health"),
      api<{ deliveries: Delivery[] }>(
        "GET",
        `/deliveries?limit=50${filter ? `&status=${encodeURIComponent(filter)}` : ""}` +
          (eventType ? `&eventType=${encodeURIComponent(eventType)}` : ""),
      ),
      api<DeliveryStats>("GET", "/delivery-stats?windowMinutes=60").then(drawCharts),
    ]);
    latest = { endpoints: endpoints.endpoints, health: health.endpoints, deliveries: recent.deliveries };
    await deliveries.refreshDetails(api, latest.deliveries);
    render();
    setStatus("live", `Live: refreshed ${new Date().toLocaleTimeString()} (every ${POLL_MS / 1000} s).`);
  } catch (error) {
    if ((error as Error).message !== SIGNED_OUT)
      setStatus("error", `Could not refresh: ${(error as Error).message}`);
  } finally {
    polling = false;
  }
}

function signIn(value: string): void {
  session.set(value);
  byId("login").hidden = true;
  byId("main").hidden = false;
  setStatus("connecting", "Loading…");
  void poll();
  clearInterval(timer);
  timer = setInterval(() => void poll(), POLL_MS);
}

function signOut(message: string, end: boolean): void {
  const ended = session.get();
  if (end && ended)
    fetch(`${BASE}/sessions/current`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${ended}` },
    }).catch(() => {});
  session.clear();
  clearInterval(timer);
  byId("main").hidden = true;
  byId("login").hidden = false;
  byId("login-message").textContent = show(message);
  setStatus("signed-out", "Signed out.");
}

byId("login").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = byId<HTMLInputElement>("token");
  const value = input.value;
  input.value = "";
  if (!value) return;
  exchange(`${BASE}/sessions`, { token: value }).then(signIn, (error: Error) =>
    signOut(error.message, false),
  );
});
byId("sign-out").addEventListener("click", () => signOut("", true));
byId("filter").addEventListener("change", () => void poll());
byId("event-type-filter").addEventListener("change", () => void poll());
bindSubscribeForm(act);
bindFilterForm(act);
// A whole number of deliveries a second; empty: no limit (null). The store checks the range.
byId("rate").addEventListener("submit", (event) => {
  event.preventDefault();
  const id = fieldValue("rate-endpoint");
  const text = fieldValue("rate-limit").trim();
  act<{ endpoint: Endpoint }>(
    byId<HTMLButtonElement>("rate-button"),
    "PATCH",
    `/endpoints/${id}`,
    { rateLimit: text === "" ? null : Number(text) },
    (data) =>
      notice(
        data.endpoint.rateLimit === null
          ? `Endpoint ${id} has no rate limit.`
          : `Endpoint ${id} is sent at most ${data.endpoint.rateLimit} deliveries a second.`,
      ),
  );
});
// The store checks the new URL as it checks a new endpoint's, and says why it refuses one. A
// subscriber's endpoint comes back unverified: its new URL has asked for nothing yet.
byId("move").addEventListener("submit", (event) => {
  event.preventDefault();
  const id = fieldValue("move-endpoint");
  act<{ endpoint: Endpoint }>(
    byId<HTMLButtonElement>("move-button"),
    "PATCH",
    `/endpoints/${id}`,
    { url: fieldValue("move-url") },
    (data) => {
      byId<HTMLInputElement>("move-url").value = "";
      notice(
        `Endpoint ${id} moved to ${data.endpoint.url}` +
          (data.endpoint.verified
            ? "; its next attempts go there."
            : "; it is unverified now and sent nothing until the new URL answers the handshake (Verify again, on its row)."),
      );
    },
  );
});
bindReplayForm(act);

// ---- Alerts block: its own poll and list, apart from the tables (and the charts beside them). ----
// The last day's alerts, newest first (GET /alerts): the same events the worker logs and queues as
// operational webhooks. The list is rebuilt only when the alerts changed.
interface Alert {
  type: string;
  at: string;
  endpointId: number;
  url: string;
  reason?: string;
  lastStatus: number | null;
  lastError?: string | null;
  failingSince?: string | null;
  deliveryId?: number;
  eventType?: string | null;
  attempts?: number;
}

let alertsShown: string | null = null;
function alertText(alert: Alert): string {
  const last = alert.lastStatus === null ? alert.lastError : alert.lastStatus;
  if (alert.type === "endpoint.disabled") return String(alert.reason);
  if (alert.type === "endpoint.recovered")
    return `answered ${alert.lastStatus} after failing since ${when(alert.failingSince ?? null)}`;
  if (alert.type === "delivery.failed")
    return `delivery ${alert.deliveryId} (${alert.eventType || "untyped"}) failed after ${alert.attempts} attempt(s), last answer ${last}`;
  return `last answer ${last}`;
}
function alertItem(entry: { alert: Alert }): HTMLElement {
  const alert = entry.alert;
  return el("li", { "data-alert-type": alert.type, "data-endpoint-id": alert.endpointId }, [
    el("span", { className: "muted", text: `${when(alert.at)} ` }),
    el("span", { className: `state state-${String(alert.type).replace(".", "-")}`, text: alert.type }),
    el("span", { text: ` #${alert.endpointId} ${alert.url}`, max: 120 }),
    el("span", { className: "muted", text: ` — ${alertText(alert)}`, max: 300 }),
  ]);
}
function refreshAlerts(): void {
  if (!session.get() || byId("main").hidden) return;
  api<{ alerts: { alert: Alert }[] }>("GET", "/alerts?limit=20")
    .then((data) => {
      const key = JSON.stringify(data.alerts);
      if (key === alertsShown) return;
      alertsShown = key;
      byId("alerts").replaceChildren(...data.alerts.map(alertItem));
      byId("no-alerts").hidden = data.alerts.length > 0;
    })
    .catch(() => {});
}
setInterval(refreshAlerts, POLL_MS);
// ---- End of the alerts block. ----

// A sign-in link (#code=…): the code is taken off the address bar at once and spent on a session.
// A link carrying the operator token itself is refused: the browser's history has kept it already.
const fragment = new URLSearchParams(location.hash.slice(1));
if (location.hash) history.replaceState(null, "", location.pathname + location.search);
const code = fragment.get("code");
const kept = session.get();
if (code) {
  exchange(`${BASE}/sessions`, { code }).then(signIn, (error: Error) => {
    signOut(
      `This sign-in link cannot be used (${error.message}); ask for a new one or enter the operator token.`,
      false,
    );
  });
} else if (fragment.get("token")) {
  signOut(
    "Links carrying the operator token are refused: a browser keeps them in its history. Enter the token here, or open a sign-in link (POST /login-codes).",
    false,
  );
} else if (kept) signIn(kept);
else signOut("", false);
