import { IdempotencyConflictError, StaleFilterSetError, WebhookIdTakenError } from "../../errors.js";
import type { EnqueueResult } from "../../outbox.js";
import { countExcluded, excludedByFilters } from "../excluded-by-filters.js";
import { excludedBySet } from "../filter-set.js";
import type { InsertedMessage } from "../message-to-insert.js";
import { count, type Operation, rows } from "../operation.js";
import type { PreparedMessage } from "../prepare-message.js";
import type { QueueContext } from "../queue-context.js";
import type { MessageRow } from "../rows.js";
import { raw, sql } from "../sql.js";
import { requireSubscribers } from "./require-subscribers.js";

/**
 * Queues messages in order, each with one delivery per active endpoint, all or none. A message whose
 * idempotency key is known answers with the key's first message (`duplicate: true`), or is refused when
 * its payload differs from that message's (`IdempotencyConflictError`); one whose webhook id another
 * message has is refused (`WebhookIdTakenError`). A refusal takes back what the call had inserted, so
 * not even the caller's own transaction, should it commit anyway, keeps part of the batch.
 */
export function* enqueueMessages(
  ctx: QueueContext,
  messages: readonly PreparedMessage[],
  traceparents: readonly string[],
): Operation<EnqueueResult[]> {
  const { dialect } = ctx;
  yield* requireSubscribers(
    ctx,
    messages.map((message) => message.subscriberId),
  );
  // One message cannot be refused once it is in: the store's insert counts its exclusions with their
  // rows (on PostgreSQL in the same statement).
  const single = messages.length === 1;
  const insert = (excluded: ReadonlyMap<string, readonly number[]>, filterSet?: string) =>
    ctx.store.insertMessages(
      ctx,
      messages.map((message, index) => {
        const filteredOut = excluded.get(message.webhookId);
        return {
          ...message,
          traceparent: traceparents[index] ?? null,
          ...(filteredOut ? { filteredOut } : {}),
        };
      }),
      { countExclusions: single, ...(filterSet === undefined ? {} : { filterSet }) },
    );
  let checked: { excluded: ReadonlyMap<string, readonly number[]>; inserted: InsertedMessage[] } | undefined;
  // On a store that checks the filter set in its insert: the verdicts of this process's copy, sent with
  // the insert (no statement before it), for one message, or for a batch while no endpoint has a filter
  // (nothing to exclude, so nothing to count). A stale copy is read again once; a second miss (the set
  // changing under every read), or a batch with filtered endpoints, takes the path below (a batch's
  // counts, written by `countExcluded`, need the fan-out's candidates only; its extra statement is shared).
  const { filterSets, store } = ctx;
  if (filterSets && store.readFilterSet)
    for (let tries = 0; tries < 2 && checked === undefined; tries++) {
      filterSets.current ??= yield* store.readFilterSet();
      const set = filterSets.current;
      if (!single && set.endpoints.length > 0) break;
      const verdicts = excludedBySet(set, messages);
      try {
        checked = { excluded: verdicts, inserted: yield* insert(verdicts, set.fingerprint) };
      } catch (error) {
        if (!(error instanceof StaleFilterSetError)) throw error;
        if (filterSets.current === set) filterSets.current = undefined;
      }
    }
  if (checked === undefined) {
    // Before the insert (the fan-out leaves the excluded endpoints out), in the same transaction.
    const excluded = yield* excludedByFilters(ctx, messages);
    checked = { excluded, inserted: yield* insert(excluded) };
  }
  const { excluded, inserted } = checked;
  // A batch's, counted once nothing can refuse it any more: a refusal takes back what it inserted, the
  // exclusion rows with the messages (their cascade), where a count would stay.
  const counted = function* () {
    if (excluded.size === 0 || single) return;
    const added = new Set(inserted.map((message) => message.webhook_id));
    yield* countExcluded(
      [...excluded].flatMap(([webhookId, endpointIds]) => (added.has(webhookId) ? endpointIds : [])),
      ctx,
    );
  };
  const [only] = inserted;
  // The common case, one new message, without the bookkeeping the general one needs.
  if (single && only !== undefined) {
    return [
      {
        messageId: Number(only.id),
        webhookId: only.webhook_id,
        duplicate: false,
        deliveries: Number(only.deliveries),
      },
    ];
  }
  const added = new Map(inserted.map((message) => [message.webhook_id, message]));
  const known = messages.filter((message) => !added.has(message.webhookId));
  let firsts = new Map<string, MessageRow>();
  try {
    const keys = [...new Set(known.flatMap((message) => message.idempotencyKey ?? []))];
    if (keys.length > 0)
      firsts = new Map(
        (yield* rows<MessageRow>(
          sql`SELECT * FROM webhook_messages WHERE ${dialect.isIn(raw("idempotency_key"), keys, "text")}`,
        )).map((message) => [message.idempotency_key as string, message]),
      );
    const results = messages.map((message): EnqueueResult => {
      const row = added.get(message.webhookId);
      if (row)
        return {
          messageId: Number(row.id),
          webhookId: message.webhookId,
          duplicate: false,
          deliveries: Number(row.deliveries),
        };
      const first = message.idempotencyKey === null ? undefined : firsts.get(message.idempotencyKey);
      if (!first)
        throw new WebhookIdTakenError(`webhook id ${message.webhookId} is already taken by another message`);
      if (
        first.payload !== message.payload ||
        Number(first.subscriber_id ?? 0) !== (message.subscriberId ?? 0)
      )
        throw new IdempotencyConflictError(
          "This idempotency key was already used with another payload or addressee; nothing was queued",
        );
      return { messageId: Number(first.id), webhookId: first.webhook_id, duplicate: true, deliveries: 0 };
    });
    yield* counted();
    return results;
  } catch (error) {
    if (inserted.length > 0)
      yield* count(
        sql`DELETE FROM webhook_messages WHERE ${dialect.isIn(
          raw("id"),
          inserted.map((message) => Number(message.id)),
          "bigint",
        )}`,
      );
    throw error;
  }
}
