import { InvalidSubscriberError } from "../../errors.js";
import type { AddedSubscriber, AddSubscriberInput } from "../../outbox.js";
import { type Operation, row } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { type SubscriberRow, toSubscriber } from "../rows.js";
import { sql } from "../sql.js";
import { newSubscriberToken, subscriberTokenDigest } from "../subscriber-token.js";

/** Longest subscriber name kept. */
const MAX_NAME_LENGTH = 200;

// A name is shown on the operator's page and in its CLI: a control character there could rewrite a
// terminal line or hide the rest of the name.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

export function* addSubscriber(ctx: QueueContext, input: AddSubscriberInput): Operation<AddedSubscriber> {
  const { name } = input;
  if (
    typeof name !== "string" ||
    name.trim() === "" ||
    name.length > MAX_NAME_LENGTH ||
    CONTROL_CHARACTER.test(name)
  )
    throw new InvalidSubscriberError(
      `A subscriber's name is 1 to ${MAX_NAME_LENGTH} characters, not only spaces, without control characters`,
    );
  const token = newSubscriberToken();
  const added = yield* row<SubscriberRow>(
    sql`INSERT INTO webhook_subscribers (name, token_hash, created_at)
        VALUES (${name}, ${subscriberTokenDigest(token)}, ${ctx.now}) RETURNING id, name, created_at`,
  );
  return { subscriber: toSubscriber(added as SubscriberRow), token };
}
