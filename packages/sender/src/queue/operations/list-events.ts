import { createDeliverySigner } from "../../delivery/sign-delivery.js";
import { EventsExpiredError, InvalidCursorError } from "../../errors.js";
import { type EventPage, type ListEventsOptions, MAX_EVENTS_PAGE } from "../../outbox.js";
import { type Operation, row, rows } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { raw, sql } from "../sql.js";
import { getEndpoint } from "./get-endpoint.js";

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

interface EventRow {
  message_id: number | string;
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
 * oldest one kept) rather than skip them silently. One point look-up on the (message, endpoint) key while
 * the cursor's delivery is still kept.
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
  const endpoint = yield* getEndpoint(ctx, endpointId, options.scope);
  if (!endpoint) return undefined;
  if (after !== undefined && after > 0) {
    const kept = yield* row(
      sql`SELECT 1 AS found FROM webhook_deliveries WHERE message_id = ${after} AND endpoint_id = ${endpointId}`,
    );
    if (!kept) {
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
  }
  const from =
    after !== undefined
      ? sql`d.message_id > ${after}`
      : options.since !== undefined
        ? sql`m.created_at >= ${options.since.getTime()}`
        : raw("true");
  const found = yield* rows<EventRow>(
    sql`SELECT d.message_id, m.webhook_id, m.event_type, m.payload, m.created_at
        FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
        WHERE d.endpoint_id = ${endpointId} AND ${from}
        ORDER BY d.message_id LIMIT ${limit}`,
  );
  const sign = createDeliverySigner(endpoint.secrets);
  const events = found.map((event) => ({
    webhookId: event.webhook_id,
    eventType: event.event_type,
    timestamp: new Date(Number(event.created_at)),
    headers: sign({
      webhookId: event.webhook_id,
      timestamp: signedAt,
      body: event.payload,
      eventType: event.event_type,
      // Under the names a push to this endpoint carries, with its static headers: verified alike.
      signatureHeaders: endpoint.signatureHeaders,
    }),
    body: event.payload,
  }));
  const last = found.at(-1);
  return { events, next: last === undefined ? null : String(Number(last.message_id)) };
}
