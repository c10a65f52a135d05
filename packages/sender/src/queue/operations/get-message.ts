import type { MessageRecord } from "../../outbox.js";
import { type Operation, row } from "../operation.js";
import { type MessageRow, toMessage } from "../rows.js";
import { sql } from "../sql.js";

export function* getMessage(id: number): Operation<MessageRecord | undefined> {
  const found = yield* row<MessageRow>(sql`SELECT * FROM webhook_messages WHERE id = ${id}`);
  return found ? toMessage(found) : undefined;
}
