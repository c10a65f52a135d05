import type { Subscriber } from "../../outbox.js";
import { type Operation, row } from "../operation.js";
import { type SubscriberRow, toSubscriber } from "../rows.js";
import { sql } from "../sql.js";
import { isSubscriberTokenShape, sameDigest, subscriberTokenDigest } from "../subscriber-token.js";

export function* authenticateSubscriber(token: string): Operation<Subscriber | undefined> {
  if (typeof token !== "string" || !isSubscriberTokenShape(token)) return undefined;
  const digest = subscriberTokenDigest(token);
  const found = yield* row<SubscriberRow>(
    sql`SELECT id, name, token_hash, created_at FROM webhook_subscribers WHERE token_hash = ${digest}`,
  );
  if (!found?.token_hash || !sameDigest(found.token_hash, digest)) return undefined;
  return toSubscriber(found);
}
