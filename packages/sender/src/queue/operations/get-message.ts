import type { MessageRecord, SubscriberScope } from "../../outbox.js";
import { type Operation, row } from "../operation.js";
import { type MessageRow, toMessage } from "../rows.js";
import { raw, sql } from "../sql.js";
import { endpointInScope } from "../subscriber-scope.js";

/**
 * A message; in a subscriber's scope, only one it was sent: addressed to it, or delivered to one of its
 * endpoints (a message to everyone that none of its endpoints received is not its to read).
 */
export function* getMessage(id: number, scope?: SubscriberScope): Operation<MessageRecord | undefined> {
  const inScope =
    scope === undefined
      ? sql`true`
      : sql`(m.subscriber_id = ${scope.subscriberId} OR EXISTS (SELECT 1 FROM webhook_deliveries d
              WHERE d.message_id = m.id AND ${endpointInScope(raw("d.endpoint_id"), scope)}))`;
  const found = yield* row<MessageRow>(
    sql`SELECT * FROM webhook_messages m WHERE m.id = ${id} AND ${inScope}`,
  );
  return found ? toMessage(found) : undefined;
}
