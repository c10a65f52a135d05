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
 * come from `/deliveries`, polled every 2 s and after every plant event, and the catch-up's state
 * (where it is in the store's events, its last run, the pulled events it refused) from `/catch-up`.
 */
import {
  byId,
  el,
  exchange,
  SIGNED_OUT,
  setStatus as setPageStatus,
  show,
  showLine,
  tabSession,
} from "@plant-store/app-shell/page-kit";

interface Plant {
  id: number;
  webhookId: string;
  name: string;
  tag?: string | null;
  receivedAt: string;
}

interface Delivery {
  webhookId: string;
  attempt: number;
  attemptSource: string;
  duplicate: boolean;
  status: number;
  handledMs: number;
  handledAt: string;
}

interface CatchUpView {
  enabled: boolean;
  from?: string;
  status?: string;
  cursor?: string | null;
  lastRunAt?: string | null;
  lastError?: string | null;
  failures?: number;
  nextRunAt?: string | null;
  received?: number;
  duplicates?: number;
  refused?: number;
  refusedEvents?: Array<{ webhookId: string; code?: string; at: string }>;
  expired?: { at: string; cursor: string; oldestCursor: string } | null;
}

const session = tabSession("plant-receiver-session");
const list = byId("plants");
const seen = new Set<string>();
let streamOpen = false;
let stream: AbortController | null = null;
let retry: ReturnType<typeof setTimeout> | undefined;
let timer: ReturnType<typeof setInterval> | undefined;
let polling = false;

// The receiver's styles and tests read the body's data-live.
const setStatus = (state: string, text: string) => setPageStatus(state, text, "live");

async function authorized(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = { authorization: `Bearer ${session.get()}`, ...(init.headers as Record<string, string>) };
  const response = await fetch(path, { ...init, headers });
  if (response.status === 401) {
    signOut("Your session has ended; sign in again.", false);
    throw new Error(SIGNED_OUT);
  }
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response;
}

function render(plant: Plant, fresh: boolean): void {
  if (seen.has(plant.webhookId)) return;
  seen.add(plant.webhookId);
  byId("empty").hidden = true;
  const at = Date.parse(plant.receivedAt);
  // One line each: a name's line feeds are shown as escapes too.
  const name = el("strong", { className: "name" });
  name.textContent = showLine(plant.name);
  const tag = plant.tag ? el("span", { className: "tag" }) : null;
  if (tag) tag.textContent = showLine(plant.tag);
  const meta = el("span", {
    className: "meta",
    text: `#${plant.id} · ${new Date(plant.receivedAt).toLocaleString()}`,
  });
  const item = el("li", {}, [name, tag, meta]);
  if (fresh) item.className = "new";
  item.dataset.webhookId = plant.webhookId;
  item.dataset.plantId = String(plant.id);
  item.dataset.at = String(at);
  // Before the first one that arrived earlier: newest first (a live plant usually goes on top).
  let next = list.firstElementChild as HTMLElement | null;
  while (next && Number(next.dataset.at) >= at) next = next.nextElementSibling as HTMLElement | null;
  list.insertBefore(item, next);
}

// Only once the stream is open: a plant stored between loading the list and opening the stream
// would be in neither. Also after a reconnect, for the plants stored while it was down.
function load(): void {
  authorized("/plants?limit=100")
    .then((response) => response.json() as Promise<{ plants: Plant[] }>)
    .then((body) => {
      for (const plant of body.plants) render(plant, false);
      if (streamOpen) setStatus("live", "Live: new plants appear as they arrive.");
    })
    .catch((error: Error) => {
      if (error.message !== SIGNED_OUT) setStatus("error", "Could not load the plants received so far.");
    });
}

function deliveryRow(entry: Delivery): HTMLElement {
  const id = el("td", { className: "id" });
  id.textContent = showLine(entry.webhookId);
  const row = el("tr", {}, [
    id,
    el("td", {
      className: "attempt",
      text: entry.attempt + (entry.attemptSource === "seen" ? " (seen here)" : ""),
    }),
    el("td", { className: "duplicate", text: entry.duplicate ? "duplicate" : "new" }),
    el("td", { className: "status", text: entry.status }),
    el("td", { className: "handled", text: `${entry.handledMs} ms` }),
    el("td", { className: "at", text: new Date(entry.handledAt).toLocaleTimeString() }),
  ]);
  row.dataset.webhookId = entry.webhookId;
  row.dataset.attempt = String(entry.attempt);
  row.dataset.duplicate = String(entry.duplicate);
  return row;
}

function catchUpLine(view: CatchUpView): string {
  if (!view.enabled) return byId("catch-up").textContent ?? "";
  const time = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleTimeString() : "never");
  const parts = [
    `${view.status} · from ${view.from}`,
    `last run ${time(view.lastRunAt)}, next ${time(view.nextRunAt)}`,
    `pulled: ${view.received} handled, ${view.duplicates} already handled, ${view.refused} refused`,
  ];
  if (view.lastError) parts.push(`last run failed (${view.failures} in a row): ${view.lastError}`);
  if (view.expired)
    parts.push(
      `the store no longer had the events after cursor ${view.expired.cursor} (retention); went on from ${view.expired.oldestCursor}`,
    );
  return parts.join(" — ");
}

function catchUp(): void {
  authorized("/catch-up")
    .then((response) => response.json() as Promise<CatchUpView>)
    .then((view) => {
      const line = byId("catch-up");
      line.dataset.status = view.enabled ? (view.status ?? "") : "off";
      line.textContent = showLine(catchUpLine(view));
      byId("catch-up-refused").replaceChildren(
        ...(view.refusedEvents ?? []).map((entry) => {
          const item = el("li", { text: "" });
          item.textContent = showLine(
            `${entry.webhookId}: ${entry.code ?? "refused"} at ${new Date(entry.at).toLocaleTimeString()}`,
          );
          item.dataset.webhookId = entry.webhookId;
          return item;
        }),
      );
    })
    .catch(() => {
      // The plants' status line tells about the connection.
    });
}

function details(): void {
  if (polling || !session.get()) return;
  polling = true;
  catchUp();
  authorized("/deliveries")
    .then(
      (response) => response.json() as Promise<{ deliveries: Delivery[]; refused: Record<string, number> }>,
    )
    .then((body) => {
      byId("deliveries").replaceChildren(...body.deliveries.map(deliveryRow));
      const codes = Object.keys(body.refused).sort();
      byId("no-refused").hidden = codes.length > 0;
      byId("refused").replaceChildren(
        ...codes.map((code) => el("li", { "data-status": code, text: `${code}: ${body.refused[code]}` })),
      );
    })
    .catch(() => {
      // The plants' status line tells about the connection.
    })
    .finally(() => {
      polling = false;
    });
}

// One server-sent event: its lines up to the blank line that ends it.
function dispatch(block: string): void {
  let name = "message";
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) name = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  if (name === "plant" && data.length) {
    render(JSON.parse(data.join("\n")) as Plant, true);
    details();
  }
}

// The /events stream, read with fetch so it can carry the session; reconnects 2 s after it ends.
function connect(): void {
  clearTimeout(retry);
  const controller = new AbortController();
  stream = controller;
  authorized("/events", { signal: controller.signal, headers: { accept: "text/event-stream" } })
    .then(async (response) => {
      streamOpen = true;
      load();
      if (!response.body) throw new Error("no stream");
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) throw new Error("stream ended");
        buffer = (buffer + chunk.value).replace(/\r\n?/g, "\n");
        const blocks = buffer.split("\n\n");
        buffer = blocks.pop() ?? "";
        blocks.forEach(dispatch);
      }
    })
    .catch(() => {
      streamOpen = false;
      if (controller.signal.aborted || !session.get()) return;
      setStatus("reconnecting", "Disconnected; reconnecting…");
      retry = setTimeout(connect, 2000);
    });
}

function signIn(value: string): void {
  session.set(value);
  byId("login").hidden = true;
  byId("main").hidden = false;
  setStatus("connecting", "Connecting…");
  connect();
  details();
  clearInterval(timer);
  timer = setInterval(details, 2000);
}

function signOut(message: string, end: boolean): void {
  const ended = session.get();
  if (end && ended)
    fetch("/sessions/current", { method: "DELETE", headers: { authorization: `Bearer ${ended}` } }).catch(
      () => {},
    );
  session.clear();
  clearInterval(timer);
  clearTimeout(retry);
  stream?.abort();
  streamOpen = false;
  byId("main").hidden = true;
  byId("login").hidden = false;
  byId("login-message").textContent = show(message);
  setStatus("signed-out", "Signed out.");
}

byId("login").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = byId<HTMLInputElement>("read-token");
  const value = input.value;
  input.value = "";
  if (!value) return;
  exchange("/sessions", { token: value }).then(signIn, (error: Error) => signOut(error.message, false));
});
byId("sign-out").addEventListener("click", () => signOut("", true));

// A sign-in link (#code=…): the code is taken off the address bar at once and spent on a session.
const fragment = new URLSearchParams(location.hash.slice(1));
if (location.hash) history.replaceState(null, "", location.pathname + location.search);
const code = fragment.get("code");
const kept = session.get();
if (code) {
  exchange("/sessions", { code }).then(signIn, (error: Error) => {
    signOut(
      `This sign-in link cannot be used (${error.message}); ask for a new one or enter the read token.`,
      false,
    );
  });
} else if (kept) signIn(kept);
else signOut("", false);
