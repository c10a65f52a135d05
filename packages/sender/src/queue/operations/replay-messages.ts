import { EndpointNotFoundError } from "../../errors.js";
import { toFilterInput } from "../../filter/compile-endpoint-filter.js";
import type { SubscriberScope } from "../../outbox.js";
import { ADDRESSED_TO_ENDPOINT } from "../endpoint-receives.js";
import { passesFilter } from "../excluded-by-filters.js";
import { count, type Operation, row, rows, wake } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { param, raw, sql } from "../sql.js";
import { ownedBy } from "../subscriber-scope.js";

/**
 * Queues every retained message enqueued since `since` that the endpoint subscribes to again, due now
 * with a fresh schedule: a delivery it already has starts over (keeping its attempts), others are added.
 * A lease is freed: an attempt in flight may have started before what the replay was asked for, so it
 * only counts when recorded, and the delivery is sent again (receivers dedup by webhook id).
 * Only messages for everyone or addressed to the endpoint's own subscriber: a replay must not send one
 * subscriber's messages to another's endpoint (or the operator's).
 * A replay addresses messages as an enqueue would: the endpoint's filter, as it stands now, is run on
 * each, and one it excludes is not queued (nor started over) but recorded as excluded, once per message.
 */
export function* replayMessages(
  ctx: QueueContext,
  endpointId: number,
  since: Date,
  scope?: SubscriberScope,
): Operation<number> {
  const endpoint = yield* row<{ id: number | string; filter: string | null }>(
    sql`SELECT id, filter FROM webhook_endpoints WHERE id = ${endpointId} AND ${ownedBy(raw("subscriber_id"), scope)}`,
  );
  if (!endpoint) throw new EndpointNotFoundError(`No endpoint ${endpointId}`);
  const addressed = sql`e.id = ${endpointId} AND m.created_at >= ${since.getTime()}
          AND ${ADDRESSED_TO_ENDPOINT} AND ${ctx.dialect.subscribes(raw("e.event_types"), raw("m.event_type"))}`;
  let passing = raw("true");
  if (endpoint.filter !== null) {
    const { filter } = endpoint;
    const candidates = yield* rows<{ id: number | string; event_type: string | null; payload: string }>(
      sql`SELECT m.id, m.event_type, m.payload FROM webhook_messages m, webhook_endpoints e WHERE ${addressed}
          ORDER BY m.id`,
    );
    const passed: number[] = [];
    const excluded: number[] = [];
    for (const message of candidates)
      (passesFilter(filter, toFilterInput(message.event_type, JSON.parse(message.payload)))
        ? passed
        : excluded
      ).push(Number(message.id));
    if (excluded.length > 0) yield* recordReplayExcluded(ctx, endpointId, excluded);
    if (passed.length === 0) return 0;
    passing = ctx.dialect.isIn(raw("m.id"), passed, "bigint");
  }
  const queued = yield* count(
    sql`INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, event_type, ordering_key, status, next_attempt_at, created_at, updated_at)
        SELECT m.id, e.id, m.webhook_id, m.event_type, m.ordering_key, 'pending', ${ctx.now}, ${ctx.now}, ${ctx.now}
        FROM webhook_messages m, webhook_endpoints e
        WHERE ${addressed} AND ${passing}
        ORDER BY m.id
        ON CONFLICT (message_id, endpoint_id) DO UPDATE SET
          status = 'pending', round_attempts = 0, next_attempt_at = ${ctx.now}, updated_at = ${ctx.now},
          lease_owner = NULL, lease_until = NULL`,
  );
  if (queued > 0) yield* wake();
  return queued;
}

/**
 * The messages a replay's filter run excluded, recorded as an enqueue's are: each once (a message
 * excluded before, by its enqueue or an earlier replay, is not counted again).
 */
function* recordReplayExcluded(ctx: QueueContext, endpointId: number, messageIds: number[]): Operation<void> {
  const added = yield* count(
    sql`INSERT INTO webhook_exclusions (endpoint_id, message_id)
        SELECT ${param(endpointId, "bigint")}, x.message_id FROM ${ctx.dialect.table(
          "x",
          [["message_id", "bigint"]],
          messageIds.map((id) => [id]),
        )}
        WHERE true ON CONFLICT (endpoint_id, message_id) DO NOTHING`,
  );
  if (added > 0)
    yield* count(
      sql`UPDATE webhook_endpoints SET filtered_count = filtered_count + ${added} WHERE id = ${endpointId}`,
    );
}
