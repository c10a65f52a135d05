import { describe, expect, it } from "vitest";
import type { QueueContext } from "../dialect.js";
import { ADDRESSED_TO_ENDPOINT, ENDPOINT_RECEIVES } from "../endpoint-receives.js";
import { param, render } from "../sql.js";
import { sqliteDialect } from "./sqlite-dialect.js";

const ctx = { dialect: sqliteDialect, now: param(0, "bigint") } as unknown as QueueContext;
const message = {
  webhookId: "msg_1",
  eventType: null,
  idempotencyKey: null,
  payload: "{}",
  traceparent: null,
  subscriberId: null,
  orderingKey: null,
};
/** The text of each statement the fan-out of `count` messages runs, each answered with one message row. */
function fanOutTexts(count: number): string[] {
  const texts: string[] = [];
  const operation = sqliteDialect.insertMessages(
    ctx,
    Array.from({ length: count }, () => message),
  );
  let step = operation.next();
  while (!step.done) {
    if (step.value.kind === "wake" || step.value.kind === "reuse-plans") step = operation.next();
    else {
      texts.push(render(step.value.sql, sqliteDialect).text);
      step = operation.next(
        step.value.kind === "count" ? 1 : [{ id: 1, webhook_id: "msg_1", message_id: 1 }],
      );
    }
  }
  return texts;
}

describe("the SQLite fan-out", () => {
  // The one-message path writes the rules out (a statement rendered once); this keeps it to the same rules.
  it.each([1, 2])(
    "of %i message(s) tests who receives and who is addressed as every other path does",
    (count) => {
      const fanOut = fanOutTexts(count)[1] ?? "";
      expect(fanOut).toContain("INSERT INTO webhook_deliveries");
      expect(fanOut).toContain(ENDPOINT_RECEIVES.strings[0]);
      expect(fanOut).toContain(ADDRESSED_TO_ENDPOINT.strings[0]);
    },
  );
});
