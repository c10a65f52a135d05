import { count, type Operation } from "../operation.js";
import { sql } from "../sql.js";

/**
 * Removes a subscriber with everything that was its own: the attempts of its endpoints' deliveries
 * (attempts have no foreign key on PostgreSQL, see removeEndpoint), the messages addressed to it (their
 * deliveries went only to its endpoints), its endpoints with their deliveries (by cascade), and itself.
 */
export function* removeSubscriber(id: number): Operation<boolean> {
  yield* count(
    sql`DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT d.id FROM webhook_deliveries d
          JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.subscriber_id = ${id})`,
  );
  yield* count(sql`DELETE FROM webhook_messages WHERE subscriber_id = ${id}`);
  yield* count(sql`DELETE FROM webhook_endpoints WHERE subscriber_id = ${id}`);
  return (yield* count(sql`DELETE FROM webhook_subscribers WHERE id = ${id}`)) > 0;
}
