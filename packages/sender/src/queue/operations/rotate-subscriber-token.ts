import { count, type Operation } from "../operation.js";
import { sql } from "../sql.js";
import { newSubscriberToken, subscriberTokenDigest } from "../subscriber-token.js";

export function* rotateSubscriberToken(id: number): Operation<string | undefined> {
  const token = newSubscriberToken();
  const changed = yield* count(
    sql`UPDATE webhook_subscribers SET token_hash = ${subscriberTokenDigest(token)} WHERE id = ${id}`,
  );
  return changed === 0 ? undefined : token;
}
