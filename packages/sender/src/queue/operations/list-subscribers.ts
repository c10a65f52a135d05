import type { Subscriber } from "../../outbox.js";
import { type Operation, rows } from "../operation.js";
import { type SubscriberRow, toSubscriber } from "../rows.js";
import { sql } from "../sql.js";

export function* listSubscribers(): Operation<Subscriber[]> {
  return (yield* rows<SubscriberRow>(
    sql`SELECT id, name, created_at FROM webhook_subscribers ORDER BY id`,
  )).map(toSubscriber);
}
