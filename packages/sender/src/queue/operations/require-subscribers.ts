import { SubscriberNotFoundError } from "../../errors.js";
import { type Operation, rows } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { raw, sql } from "../sql.js";

/**
 * Refuses, before anything is written, ids that name no subscriber: an endpoint would otherwise fail on
 * its foreign key with the database's own error, and a message (whose addressee has no foreign key)
 * would be queued for nobody.
 */
export function* requireSubscribers(ctx: QueueContext, ids: ReadonlyArray<number | null>): Operation<void> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  if (wanted.length === 0) return;
  // Not an id at all (1.5, "1", -1): no subscriber has it, and PostgreSQL would refuse to bind it.
  const malformed = wanted.find((id) => !Number.isSafeInteger(id) || id <= 0);
  if (malformed !== undefined) throw new SubscriberNotFoundError(`No subscriber ${String(malformed)}`);
  const found = new Set(
    (yield* rows<{ id: number | string }>(
      sql`SELECT id FROM webhook_subscribers WHERE ${ctx.dialect.isIn(raw("id"), wanted, "bigint")}`,
    )).map((subscriber) => Number(subscriber.id)),
  );
  const missing = wanted.find((id) => !found.has(id));
  if (missing !== undefined) throw new SubscriberNotFoundError(`No subscriber ${missing}`);
}
