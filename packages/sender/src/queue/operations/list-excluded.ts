import { type ExcludedPage, type ListExcludedOptions, MAX_EVENTS_PAGE } from "../../outbox.js";
import { type Operation, row, rows } from "../operation.js";
import { raw, sql } from "../sql.js";
import { ownedBy } from "../subscriber-scope.js";
import { parseCursor } from "./list-events.js";

interface ExcludedRow {
  message_id: number | string;
  webhook_id: string;
  event_type: string | null;
  created_at: number | string;
}

/**
 * The messages the endpoint's filter excluded after the cursor `after` (a message id, as `listEvents`'s),
 * oldest first: one range of `webhook_exclusions`' key, each joined to its message. Retention deletes an
 * exclusion with its message, so a page never names a message that is gone; a cursor past what was
 * deleted reads on from what is left (nothing to deliver was lost: these messages were never queued).
 */
export function* listExcluded(
  endpointId: number,
  options: ListExcludedOptions,
): Operation<ExcludedPage | undefined> {
  const limit = options.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_EVENTS_PAGE)
    throw new RangeError(`limit must be an integer from 1 to ${MAX_EVENTS_PAGE}, not ${limit}`);
  const after = options.after === undefined ? 0 : parseCursor(options.after);
  const endpoint = yield* row(
    sql`SELECT id FROM webhook_endpoints WHERE id = ${endpointId} AND ${ownedBy(raw("subscriber_id"), options.scope)}`,
  );
  if (!endpoint) return undefined;
  const found = yield* rows<ExcludedRow>(
    sql`SELECT x.message_id, m.webhook_id, m.event_type, m.created_at
        FROM webhook_exclusions x JOIN webhook_messages m ON m.id = x.message_id
        WHERE x.endpoint_id = ${endpointId} AND x.message_id > ${after}
        ORDER BY x.message_id LIMIT ${limit}`,
  );
  const messages = found.map((message) => ({
    messageId: Number(message.message_id),
    webhookId: message.webhook_id,
    eventType: message.event_type,
    createdAt: new Date(Number(message.created_at)),
  }));
  const last = messages.at(-1);
  return { messages, next: last === undefined ? null : String(last.messageId) };
}
