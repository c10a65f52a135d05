import type { Subscriber } from "../../outbox.js";
import { type Operation, row } from "../operation.js";
import { type SubscriberRow, toSubscriber } from "../rows.js";
import { sql } from "../sql.js";

export function* getSubscriber(id: number): Operation<Subscriber | undefined> {
  const found = yield* row<SubscriberRow>(
    sql`SELECT id, name, created_at FROM webhook_subscribers WHERE id = ${id}`,
  );
  return found ? toSubscriber(found) : undefined;
}
