import type { DeliveryRecord, ListDeliveriesOptions } from "../../outbox.js";
import { type Operation, rows } from "../operation.js";
import { type DeliveryRow, toDelivery } from "../rows.js";
import { join, raw, type Sql, sql } from "../sql.js";
import { endpointInScope } from "../subscriber-scope.js";

/** Newest first, filtered by what is given. */
export function* listDeliveries(options: ListDeliveriesOptions): Operation<DeliveryRecord[]> {
  const where: Sql[] = [sql`true`];
  if (options.status !== undefined) where.push(sql`status = ${options.status}`);
  if (options.eventType !== undefined) where.push(sql`event_type = ${options.eventType}`);
  if (options.endpointId !== undefined) where.push(sql`endpoint_id = ${options.endpointId}`);
  if (options.messageId !== undefined) where.push(sql`message_id = ${options.messageId}`);
  if (options.subscriberId !== undefined)
    where.push(endpointInScope(raw("endpoint_id"), { subscriberId: options.subscriberId }));
  const found = yield* rows<DeliveryRow>(
    sql`SELECT * FROM webhook_deliveries WHERE ${join(where, " AND ")} ORDER BY id DESC LIMIT ${options.limit ?? 100}`,
  );
  return found.map(toDelivery);
}
