import { count, type Operation } from "../operation.js";
import { sql } from "../sql.js";

/**
 * Removes an endpoint with its deliveries (by cascade) and their attempts, which the outbox deletes
 * itself on both databases (PostgreSQL keeps no foreign key on attempts: its check would lock the
 * delivery row once more per attempt).
 */
export function* removeEndpoint(id: number): Operation<boolean> {
  yield* count(
    sql`DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = ${id})`,
  );
  return (yield* count(sql`DELETE FROM webhook_endpoints WHERE id = ${id}`)) > 0;
}
