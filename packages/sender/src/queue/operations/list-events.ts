import { createHash, timingSafeEqual } from "node:crypto";
import { createWebhookSigner, SIGNATURE_HEADER_NAMES, WEBHOOK_EVENT_TYPE_HEADER } from "@plant-store/types";
import { EventsExpiredError, InvalidCursorError } from "../../errors.js";
import { type EndpointEvent, type EventPage, type ListEventsOptions, MAX_EVENTS_PAGE } from "../../outbox.js";
import { type Operation, row, rows } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { raw, type Sql, sql } from "../sql.js";
import { ownedBy } from "../subscriber-scope.js";

/**
 * A cursor is the id of the last message a page held, in decimal: opaque to callers (documented as such),
 * so it may change shape without a new API. Anything else is refused rather than read as "from the start",
 * which would hand a mistyped cursor every retained event again.
 */
const CURSOR = /^(0|[1-9][0-9]{0,15})$/;

export function parseCursor(cursor: string): number {
  const id = CURSOR.test(cursor) ? Number(cursor) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw new InvalidCursorError(`Not a cursor of this store: ${cursor}`);
  return id;
}

const digest = (value: string) => createHash("sha256").update(value).digest();
/** Compared in constant time whatever the lengths (the digests are equal in length). */
const sameToken = (candidate: string, expected: string) =>
  timingSafeEqual(digest(candidate), digest(expected)) && expected.length > 0;

type Signer = ReturnType<typeof createWebhookSigner>;

/**
 * Signers by the text of their keys, the last few endpoints' (the keys are read afresh every page, so the
 * sender's per-list cache never hits here): making one parses and imports each key, about 50 µs, as much
 * as 15 events' HMACs, once a page. Keyed by the keys themselves, a rotation makes a new one.
 */
const signers = new Map<string, Signer>();
const SIGNERS_KEPT = 64;

function signerOf(secrets: readonly string[]): Signer {
  const id = secrets.join("\n");
  let sign = signers.get(id);
  if (sign === undefined) {
    sign = createWebhookSigner(secrets);
    if (signers.size >= SIGNERS_KEPT) signers.delete(signers.keys().next().value as string);
    signers.set(id, sign);
  }
  return sign;
}

/** The endpoint's row: only what signing needs, and its sealed token. */
interface EndpointRow {
  secrets: string;
  signature_headers: string | null;
  token: string;
}

/** An event's row (on PostgreSQL, the endpoint's as well: `message_id` NULL, see below). */
interface EventRow {
  message_id: number | string | null;
  webhook_id: string;
  event_type: string | null;
  payload: string;
  created_at: number | string;
}

/**
 * The endpoint's events after `after`: its deliveries (what the fan-out addressed to it, its event types
 * applied, and the examples sent to it alone; handshakes are never queued), whatever became of them, in
 * message order, each signed now with the endpoint's current keys at `signedAt` (Unix seconds) over the
 * stored body, so a receiver verifies it exactly as a push.
 *
 * Retention deletes finished deliveries, so a cursor can outlive the events after it. The cursor names an
 * event this endpoint was listed; when that delivery is gone and events older than the oldest one kept
 * may have gone with it, the listing refuses (`EventsExpiredError`, naming the cursor just before the
 * oldest one kept) rather than skip them silently.
 */
export function* listEvents(
  ctx: QueueContext,
  endpointId: number,
  options: ListEventsOptions,
  signedAt: number,
): Operation<EventPage | undefined> {
  const limit = options.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_EVENTS_PAGE)
    throw new RangeError(`limit must be an integer from 1 to ${MAX_EVENTS_PAGE}, not ${limit}`);
  const after = options.after === undefined ? undefined : parseCursor(options.after);
  // The page reads from the cursor's own event on (`>=`, one row more): when that row is there, the
  // cursor's delivery is still kept and it is dropped; only when it is missing is the endpoint's oldest
  // kept event looked up.
  const from =
    after !== undefined
      ? sql`d.message_id >= ${after}`
      : options.since !== undefined
        ? sql`m.created_at >= ${options.since.getTime()}`
        : raw("true");
  // Only what signing needs, by name (a named statement on PostgreSQL; `getEndpoint`'s `SELECT *` never
  // is), and the sealed token, opened only when the caller names a token to compare; never its static
  // headers. Nothing when the endpoint is not the caller's.
  const endpointRow = sql`SELECT secrets, signature_headers, token FROM webhook_endpoints
        WHERE id = ${endpointId} AND ${ownedBy(raw("subscriber_id"), options.scope)}`;
  const eventRows = (also: Sql) =>
    sql`SELECT d.message_id, m.webhook_id, m.event_type, m.payload, m.created_at
        FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
        WHERE d.endpoint_id = ${endpointId} AND ${from}${also}
        ORDER BY d.message_id LIMIT ${after === undefined ? limit : limit + 1}`;
  // With `token`, only its holder lists (no token is stored as "": then no candidate is the holder's).
  const isHolder = (read: EndpointRow) =>
    options.token === undefined || (!!read.token && sameToken(options.token, ctx.codec.open(read.token)));
  let endpoint: EndpointRow | undefined;
  let found: EventRow[];
  if (ctx.dialect.name === "postgresql") {
    // One round trip a page, not two: the events, then the endpoint's row. The events are read by
    // `endpoint_id` itself, not joined to the endpoint's row, so the index is walked in message order up
    // to the limit; EXISTS over the one-row CTE is decided once. The endpoint's row comes last (its
    // `message_id` NULL) in the events' own text columns: three columns of its own, NULL in every event's
    // row, cost this process about 4 ms more per 10,000 events to parse and the server 1 ms. Ordered by
    // `message_id` alone, the server merges the two (its page is read in that order) instead of sorting.
    // The messages are bounded too (by the cursor, or the endpoint's first delivery), though the join
    // implies it: PostgreSQL carries no range across a join, and once the tables have statistics it
    // merge-joins the page with the messages read from the first one on, at every page (10,000 events
    // listed: 91 ms of its CPU instead of 20), and a first page from every message before the endpoint's.
    const fromCursor =
      after === undefined
        ? sql` AND m.id >= (SELECT min(message_id) FROM webhook_deliveries WHERE endpoint_id = ${endpointId})`
        : sql` AND m.id >= ${after}`;
    found = yield* rows<EventRow>(
      sql`WITH endpoint AS (${endpointRow})
          SELECT message_id, webhook_id, event_type, payload, created_at
          FROM (${eventRows(sql`${fromCursor} AND EXISTS (SELECT 1 FROM endpoint)`)}) AS page
          UNION ALL
          SELECT NULL, secrets, signature_headers, token, NULL
          FROM endpoint
          ORDER BY message_id`,
    );
    const last = found.at(-1);
    if (last?.message_id === null) {
      found.pop();
      endpoint = { secrets: last.webhook_id, signature_headers: last.event_type, token: last.payload };
    }
    if (endpoint === undefined || !isHolder(endpoint)) return undefined;
  } else {
    // SQLite costs no round trip, and the same union cost its page 60% more CPU than the two statements
    // (the union is sorted in a temporary B-tree).
    // The token is compared before the page is read: a caller that is not the endpoint's holder (the
    // route tries every credential as the endpoint's token first) costs no read of its events.
    endpoint = yield* row<EndpointRow>(endpointRow);
    if (endpoint === undefined || !isHolder(endpoint)) return undefined;
    found = yield* rows<EventRow>(eventRows(raw("")));
  }
  const secrets = JSON.parse(ctx.codec.open(endpoint.secrets)) as string[];
  if (after !== undefined) {
    if (found.length > 0 && Number(found[0]?.message_id) === after) found.shift();
    else if (after > 0) {
      const oldest = yield* row<{ message_id: number | string }>(
        sql`SELECT message_id FROM webhook_deliveries WHERE endpoint_id = ${endpointId} ORDER BY message_id LIMIT 1`,
      );
      const oldestKept = oldest === undefined ? undefined : Number(oldest.message_id);
      if (oldestKept !== undefined && after < oldestKept - 1)
        throw new EventsExpiredError(
          `Events after cursor ${after} are no longer retained; the oldest cursor served is ${oldestKept - 1}`,
          String(oldestKept - 1),
        );
    }
    if (found.length > limit) found.pop();
  }
  // The keys are read once a page (their signer made once); per event only what differs: its id, its
  // HMAC, its type. The stored payload is the exact text signed and served (never parsed and
  // stringified again).
  const sign = signerOf(secrets);
  // Under the names a push to this endpoint carries: verified alike.
  const names = SIGNATURE_HEADER_NAMES[endpoint.signature_headers === "svix" ? "svix" : "standard"];
  const stamp = String(signedAt);
  const events = found.map((event): EndpointEvent => {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      [names.id]: event.webhook_id,
      [names.timestamp]: stamp,
      [names.signature]: sign({ id: event.webhook_id, timestamp: signedAt, body: event.payload }),
    };
    if (event.event_type) headers[WEBHOOK_EVENT_TYPE_HEADER] = event.event_type;
    return {
      webhookId: event.webhook_id,
      eventType: event.event_type,
      timestamp: new Date(Number(event.created_at)),
      headers,
      body: event.payload,
    };
  });
  const last = found.at(-1);
  return { events, next: last === undefined ? null : String(Number(last.message_id)) };
}
