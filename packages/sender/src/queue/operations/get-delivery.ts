import type { DeliveryRecord, SubscriberScope } from "../../outbox.js";
import { type Operation, row } from "../operation.js";
import { type DeliveryRow, toDelivery } from "../rows.js";
import { raw, sql } from "../sql.js";
import { endpointInScope } from "../subscriber-scope.js";

export function* getDelivery(id: number, scope?: SubscriberScope): Operation<DeliveryRecord | undefined> {
  const found = yield* row<DeliveryRow>(
    sql`SELECT * FROM webhook_deliveries WHERE id = ${id} AND ${endpointInScope(raw("endpoint_id"), scope)}`,
  );
  return found ? toDelivery(found) : undefined;
}
