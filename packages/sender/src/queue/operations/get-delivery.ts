import type { DeliveryRecord } from "../../outbox.js";
import { type Operation, row } from "../operation.js";
import { type DeliveryRow, toDelivery } from "../rows.js";
import { sql } from "../sql.js";

export function* getDelivery(id: number): Operation<DeliveryRecord | undefined> {
  const found = yield* row<DeliveryRow>(sql`SELECT * FROM webhook_deliveries WHERE id = ${id}`);
  return found ? toDelivery(found) : undefined;
}
