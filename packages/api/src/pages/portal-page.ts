/**
 * The portal's script: the store page's, for one subscriber. Its link arrives in the URL's fragment
 * (`#psl_…`, never sent to a server): it is taken off the address bar at once (so it is not left on
 * screen, nor in a bookmark) and exchanged, once, for a short session (`POST /portal-sessions`), which
 * this tab keeps in sessionStorage and sends as `Authorization: Bearer`; the link is spent. The store
 * scopes every answer to the subscriber the session names, so the script holds no notion of who may see
 * what. "Sign out" ends the session in the store. A 401 means the session ended (expired, signed out,
 * revoked by the store): the page says so and stops asking. Every value from the API goes in through
 * `textContent` after `show()`: the subscriber's name and its URLs are as untrusted as the receivers'
 * answers.
 */
import {
  button,
  byId,
  createAct,
  createApi,
  el,
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
import { rate, subscriptions } from "./formats.js";

const POLL_MS = 1000;
const EXPIRED =
  "Your portal session has ended (it expired, or the store revoked it): ask the store for a new portal link.";
const SPENT = "This portal link was already used, has expired or was revoked: ask the store for a new one.";

const session = tabSession("plant-store-portal-credential");
const confirming = new Set<number>();
let latest: Latest = { endpoints: [], health: [], deliveries: [] };
let polling = false;
let ended = false;
let timer: ReturnType<typeof setInterval> | undefined;

// The link is spent: forget it, stop polling, and say what to do. Nothing else is asked after this.
function end(message: string): void {
  ended = true;
  session.clear();
  clearInterval(timer);
  byId("main").hidden = true;
  byId("ended").hidden = false;
  byId("ended").textContent = message;
  setStatus("ended", "");
}

/** Where the API is mounted: the portal is served at its `/portal`. */
const BASE = location.pathname.replace(/\/portal\/*$/, "");
const api = createApi({
  base: BASE,
  session: session.get,
  onSignedOut: () => end(EXPIRED),
  stopped: () => ended,
});
const act = createAct(api, () => poll());
const deliveries = createDeliveryTable({ act, render, poll: () => poll() });

function outcome(id: number | string, verification: Verification): string {
  return verification.verified
    ? `Endpoint ${id} is verified: it receives webhooks.`
    : `Endpoint ${id} is not verified, so it is sent nothing: ${verification.reason}`;
}

interface EndpointItem {
  endpoint: Endpoint;
  health: Health | null;
  confirming: boolean;
}

function endpointRow(item: EndpointItem): HTMLElement {
  const endpoint = item.endpoint;
  const id = endpoint.id;
  const reason = endpoint.status === "disabled" ? endpoint.disabledReason || "disabled" : "";
  const { toggle, subscribe, filter, move, rotate } = endpointButtons(
    endpoint,
    act,
    `(give it to your receiver; both sign every delivery until the old one is dropped).`,
  );
  const verify = button("Verify again", "verify", (b) =>
    act<{ verification: Verification }>(b, "POST", `/endpoints/${id}/verify`, undefined, (data) =>
      notice(outcome(id, data.verification)),
    ),
  );
  const example = button("Send an example", "send-example", (b) =>
    act<{ webhookId: string }>(b, "POST", `/endpoints/${id}/send-example`, undefined, (data) =>
      notice(
        `An example message is queued for endpoint ${id} (webhook id ${data.webhookId})` +
          (endpoint.verified ? "." : "; it is sent once the endpoint is verified."),
      ),
    ),
  );
  // Two clicks, no confirm(): a dialog the page cannot style, and one that scripts dismiss.
  const remove = item.confirming
    ? button("Really remove", "confirm-remove", (b) =>
        act(b, "DELETE", `/endpoints/${id}`, undefined, () => {
          confirming.delete(id);
          notice(`Endpoint ${id} removed, with its deliveries.`);
        }),
      )
    : button("Remove", "remove", () => {
        confirming.add(id);
        render();
      });
  const verified = endpoint.verified ? "verified" : "unverified";
  return el(
    "tr",
    { "data-endpoint-id": id, "data-status": endpoint.status, "data-verified": endpoint.verified },
    [
      el("td", { text: id }),
      el("td", { className: "wrap url", text: endpoint.url, max: 300 }),
      el("td", {}, [
        el("span", { className: `state state-${endpoint.status}`, text: endpoint.status }),
        reason ? el("div", { className: "muted reason", text: reason, max: 300 }) : null,
      ]),
      el("td", {}, [
        el("span", { className: `state verified state-${verified}`, text: verified }),
        endpoint.verified ? null : el("div", { className: "muted", text: "sent nothing until verified" }),
      ]),
      el("td", { className: "rate", text: rate(item.health) }),
      el(
        "td",
        { className: "wrap event-types", text: subscriptions(endpoint.eventTypes), max: 300 },
        endpointNotes(endpoint),
      ),
      el("td", {}, [toggle, verify, example, subscribe, filter, move, rotate, remove]),
    ],
  );
}

function render(): void {
  const health = new Map(latest.health.map((h) => [h.endpointId, h]));
  syncRows(
    byId("endpoints"),
    latest.endpoints.map((endpoint) => ({
      endpoint,
      health: health.get(endpoint.id) ?? null,
      confirming: confirming.has(endpoint.id),
    })),
    (item) => `e${item.endpoint.id}`,
    endpointRow,
  );
  byId("no-endpoints").hidden = latest.endpoints.length > 0;
  deliveries.sync(byId("deliveries"), latest.deliveries);
  byId("no-deliveries").hidden = latest.deliveries.length > 0;
  for (const id of ["replay-endpoint", "subscribe-endpoint", "endpoint-filter-endpoint", "move-endpoint"])
    chooseEndpoint(byId<HTMLSelectElement>(id), latest.endpoints);
}

async function poll(): Promise<void> {
  if (ended || !session.get() || polling) return;
  polling = true;
  const filter = fieldValue("filter");
  try {
    const [endpoints, health, recent] = await Promise.all([
      api<{ endpoints: Endpoint[] }>("GET", "/endpoints"),
      api<{ endpoints: Health[] }>("GET", "/endpoint-health"),
      api<{ deliveries: Delivery[] }>(
        "GET",
        `/deliveries?limit=50${filter ? `&status=${encodeURIComponent(filter)}` : ""}`,
      ),
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

byId("filter").addEventListener("change", () => void poll());
byId("add").addEventListener("submit", (event) => {
  event.preventDefault();
  act<{ endpoint: Endpoint; secret: string; verification?: Verification }>(
    byId<HTMLButtonElement>("add-button"),
    "POST",
    "/endpoints",
    { url: fieldValue("add-url"), token: fieldValue("add-token") },
    (data) => {
      byId<HTMLInputElement>("add-url").value = "";
      byId<HTMLInputElement>("add-token").value = "";
      notice(
        `Endpoint ${data.endpoint.id} added. Its signing secret, shown once (give it to your receiver): ${data.secret}\n` +
          (data.verification ? outcome(data.endpoint.id, data.verification) : ""),
      );
    },
  );
});
bindSubscribeForm(act);
bindFilterForm(act);
// The store checks the new URL as it checks a new endpoint's, and says why it refuses one. A moved
// endpoint is unverified: the store sends nothing to the new URL until it answers the handshake, so
// the notice says so and offers that handshake at once (the receiver may already run there).
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
      if (data.endpoint.verified) {
        notice(`Endpoint ${id} moved to ${data.endpoint.url}.`);
        return;
      }
      notice(
        `Endpoint ${id} moved to ${data.endpoint.url}. It is unverified now, so it is sent nothing ` +
          "(deliveries already queued wait) until the new URL answers the store's handshake. Once your receiver runs there: ",
      );
      byId("notice").appendChild(
        button("Verify now", "verify-moved", (b) =>
          act<{ verification: Verification }>(b, "POST", `/endpoints/${id}/verify`, undefined, (result) =>
            notice(outcome(id, result.verification)),
          ),
        ),
      );
    },
  );
});
bindReplayForm(act);

// A new link pasted into this tab changes only the fragment, which loads nothing: start again with it.
window.addEventListener("hashchange", () => location.reload());

// A link is spent on a session at once; a reload of this tab keeps the session, not the link.
async function signIn(fragment: string): Promise<void> {
  if (!fragment.startsWith("psl_")) return;
  const response = await fetch(`${BASE}/portal-sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ link: fragment }),
  });
  const data = (await response.json()) as { session?: string; message?: string };
  if (response.status !== 201) {
    end(response.status === 401 ? SPENT : data.message || `HTTP ${response.status}`);
    throw new Error(SIGNED_OUT);
  }
  session.set(String(data.session));
}

function start(): void {
  // The link's credential: into this tab's storage, out of the address bar before anything else runs.
  const fragment = location.hash.slice(1);
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
  // A subscriber's token lasts until rotated, and the browser's history has kept the link already:
  // refused, like the store page's #token= links. A portal link expires; that is what a link is for.
  if (fragment.startsWith("pss_")) {
    end(
      "Links carrying a subscriber token are refused: a browser keeps them in its history. Ask the store for a portal link, and have the token rotated.",
    );
    return;
  }
  byId("sign-out").addEventListener("click", () => {
    act(byId<HTMLButtonElement>("sign-out"), "DELETE", "/portal-sessions/current", undefined, () =>
      end(
        "You signed out: this portal session has ended. Open a new portal link from the store to come back.",
      ),
    );
  });
  if (!fragment && !session.get()) {
    end("Open this page through the portal link the store gave you.");
    return;
  }
  setStatus("connecting", "Loading…");
  signIn(fragment)
    .then(() => api<{ kind: string; subscriber: { name: string } }>("GET", "/me"))
    .then((me) => {
      byId("who").textContent = show(
        me.kind === "subscriber" ? me.subscriber.name : "the store's operator",
        200,
      );
      byId("main").hidden = false;
      void poll();
      timer = setInterval(() => void poll(), POLL_MS);
    })
    .catch((error: Error) => {
      if (error.message !== SIGNED_OUT) setStatus("error", `Could not load: ${error.message}`);
    });
}

start();
