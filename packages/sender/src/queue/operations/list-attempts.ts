import type { AttemptRecord } from "../../outbox.js";
import { type Operation, rows } from "../operation.js";
import { type AttemptRow, toAttempt } from "../rows.js";
import { sql } from "../sql.js";

export function* listAttempts(deliveryId: number): Operation<AttemptRecord[]> {
  const found = yield* rows<AttemptRow>(
    sql`SELECT * FROM webhook_attempts WHERE delivery_id = ${deliveryId} ORDER BY id`,
  );
  return found.map(toAttempt);
}
