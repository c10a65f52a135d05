import type { SubscriberScope } from "../../outbox.js";
import { count, type Operation } from "../operation.js";
import { raw, sql } from "../sql.js";
import { ownedBy } from "../subscriber-scope.js";

/**
 * Removes an endpoint with its deliveries (by cascade) and their attempts, which the outbox deletes
 * itself on both databases (PostgreSQL keeps no foreign key on attempts: its check would lock the
 * delivery row once more per attempt).
 */
export function* removeEndpoint(id: number, scope?: SubscriberScope): Operation<boolean> {
  const owned = ownedBy(raw("subscriber_id"), scope);
  yield* count(
    sql`DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id IN (
          SELECT id FROM webhook_endpoints WHERE id = ${id} AND ${owned}))`,
  );
  return (yield* count(sql`DELETE FROM webhook_endpoints WHERE id = ${id} AND ${owned}`)) > 0;
}
