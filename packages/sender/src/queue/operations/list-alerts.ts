import { OPERATIONAL_EVENT_TYPES, type OperationalEvent } from "@plant-store/types";
import type { AlertRecord, SubscriberScope } from "../../outbox.js";
import { type Operation, rows } from "../operation.js";
import type { MessageRow } from "../rows.js";
import { raw, sql } from "../sql.js";

/** Most alerts one call answers. */
const MAX_ALERTS = 500;

/**
 * The alerts queued since `since`, newest first: the operational messages (whether or not an endpoint
 * took them). Bounded by time so the read walks the messages' `created_at` index over that window only;
 * in a subscriber's scope, only those addressed to it (its own endpoints' alerts).
 */
export function* listAlerts(since: Date, limit: number, scope?: SubscriberScope): Operation<AlertRecord[]> {
  const types = raw(`(${OPERATIONAL_EVENT_TYPES.map((type) => `'${type}'`).join(", ")})`);
  const found = yield* rows<MessageRow>(
    sql`SELECT * FROM webhook_messages m WHERE m.created_at >= ${since.getTime()} AND m.event_type IN ${types}
          AND ${scope === undefined ? sql`true` : sql`m.subscriber_id = ${scope.subscriberId}`}
        ORDER BY m.id DESC LIMIT ${Math.max(1, Math.min(MAX_ALERTS, Math.trunc(limit)))}`,
  );
  return found.map((row) => ({
    messageId: Number(row.id),
    webhookId: row.webhook_id,
    createdAt: new Date(Number(row.created_at)),
    alert: JSON.parse(row.payload) as OperationalEvent,
  }));
}
