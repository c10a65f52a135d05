import { compiledFilter, type FilterInput, toFilterInput } from "../filter/compile-endpoint-filter.js";
import type { Dialect } from "./dialect.js";
import { ADDRESSED_TO_ENDPOINT, ENDPOINT_RECEIVES } from "./endpoint-receives.js";
import type { MessageToInsert } from "./message-to-insert.js";
import { count, type Operation, rows } from "./operation.js";
import type { PreparedMessage } from "./prepare-message.js";
import type { QueueContext } from "./queue-context.js";
import { param, raw, type Sql, sql } from "./sql.js";

/**
 * Of the deliveries the fan-out would queue for `messages`, those to an endpoint with a filter, each
 * filter run once per message and endpoint (once per message and distinct expression: CEL is
 * deterministic): the endpoints whose filter did not give `true`, by message webhook id. The candidates
 * are found with the fan-out's own rules (`ENDPOINT_RECEIVES`, `ADDRESSED_TO_ENDPOINT`, the
 * subscription), so a filter is never run, nor an exclusion counted, for a message the endpoint would
 * not have received anyway. One statement, answered from the filtered endpoints' index: nothing more
 * when no endpoint has a filter.
 */
export function* excludedByFilters(
  ctx: QueueContext,
  messages: readonly PreparedMessage[],
): Operation<Map<string, number[]>> {
  const { dialect } = ctx;
  const only = messages.length === 1 ? messages[0] : undefined;
  // One message (the common call) as a row of parameters: SQLite reads a JSON table's columns again
  // for every endpoint the join tries (a third of the statement's time with 100 filtered endpoints).
  // Its rows then leave out its webhook id, the same in each.
  const input =
    only !== undefined
      ? sql`(SELECT ${param(only.eventType, "text")} AS event_type, ${param(only.subscriberId, "bigint")} AS subscriber_id) AS m`
      : dialect.table(
          "m",
          [
            ["webhook_id", "text"],
            ["event_type", "text"],
            ["subscriber_id", "bigint"],
          ],
          messages.map((message) => [message.webhookId, message.eventType, message.subscriberId]),
        );
  const candidates = yield* rows<{ webhook_id?: string; id: number | string; filter: string }>(
    sql`SELECT ${raw(only === undefined ? "m.webhook_id, " : "")}e.id, e.filter FROM ${input} CROSS JOIN webhook_endpoints e
        WHERE e.filter IS NOT NULL AND e.status = 'active' AND ${ENDPOINT_RECEIVES} AND ${ADDRESSED_TO_ENDPOINT}
          AND ${dialect.subscribes(raw("e.event_types"), raw("m.event_type"))}`,
  );
  const excluded = new Map<string, number[]>();
  if (candidates.length === 0) return excluded;
  const byId = new Map(messages.map((message) => [message.webhookId, message]));
  // What each message's filters see, parsed from the bytes that are sent (once per message), and each
  // distinct expression's verdict on it (by message, then by expression: no key built per row).
  const seen = new Map<string, { input: FilterInput; verdicts: Map<string, boolean> }>();
  for (const candidate of candidates) {
    const webhookId = only?.webhookId ?? (candidate.webhook_id as string);
    let state = seen.get(webhookId);
    if (state === undefined) {
      const message = byId.get(webhookId);
      if (message === undefined) continue;
      state = { input: toFilterInput(message.eventType, JSON.parse(message.payload)), verdicts: new Map() };
      seen.set(webhookId, state);
    }
    let passes = state.verdicts.get(candidate.filter);
    if (passes === undefined) {
      passes = passesFilter(candidate.filter, state.input);
      state.verdicts.set(candidate.filter, passes);
    }
    if (passes) continue;
    const list = excluded.get(webhookId);
    if (list) list.push(Number(candidate.id));
    else excluded.set(webhookId, [Number(candidate.id)]);
  }
  return excluded;
}

/**
 * A stored filter's verdict. One stored before the rules it was checked by changed (or written into the
 * table by hand) may no longer compile: it excludes, as an expression that errors does.
 */
export function passesFilter(source: string, input: FilterInput): boolean {
  try {
    return compiledFilter(source).matches(input);
  } catch {
    return false;
  }
}

/** The endpoints the filters excluded any of `messages` from, in id order (the order their rows are locked in). */
export function excludedEndpointIds(messages: readonly MessageToInsert[]): number[] {
  return [...new Set(messages.flatMap((message) => message.filteredOut ?? []))].sort((a, b) => a - b);
}

/**
 * The insert recording `messages`' `filteredOut` endpoints in `webhook_exclusions`, for the inserted
 * messages that `from` names as `m` (a duplicate is not among them: it records none), and only for the
 * endpoints the fan-out would have sent them to (its own rules: a verdict may predate the endpoint's
 * row). Returns each row's `endpoint_id`; undefined while no filter excluded anything, so the enqueue's
 * statements stay the same.
 */
export function insertExclusions(
  dialect: Dialect,
  from: Sql,
  messages: readonly MessageToInsert[],
): Sql | undefined {
  const pairs = messages.flatMap((message) =>
    (message.filteredOut ?? []).map((endpointId) => [message.webhookId, endpointId]),
  );
  if (pairs.length === 0) return undefined;
  const excluded = dialect.table(
    "f",
    [
      ["webhook_id", "text"],
      ["endpoint_id", "bigint"],
    ],
    pairs,
  );
  // CROSS JOIN: SQLite walks the few pairs and finds each message by its unique webhook id.
  return sql`INSERT INTO webhook_exclusions (endpoint_id, message_id)
          SELECT f.endpoint_id, m.id FROM ${excluded} CROSS JOIN ${from}
            JOIN webhook_endpoints e ON e.id = f.endpoint_id
          WHERE m.webhook_id = f.webhook_id AND e.status = 'active' AND ${ENDPOINT_RECEIVES}
            AND ${ADDRESSED_TO_ENDPOINT} AND ${dialect.subscribes(raw("e.event_types"), raw("m.event_type"))}
          RETURNING endpoint_id`;
}

/**
 * Raises each endpoint's `filtered_count` by its exclusions (`endpointIds`, an id per excluded message
 * that was inserted), in the enqueue's transaction: one statement per distinct count (one, for a single
 * message), each endpoint's row locked in id order as every statement that writes several endpoint rows
 * takes them.
 */
export function* countExcluded(endpointIds: readonly number[], ctx: QueueContext): Operation<void> {
  const perEndpoint = new Map<number, number>();
  for (const id of endpointIds) perEndpoint.set(id, (perEndpoint.get(id) ?? 0) + 1);
  const byCount = new Map<number, number[]>();
  for (const [id, n] of perEndpoint) {
    const ids = byCount.get(n);
    if (ids) ids.push(id);
    else byCount.set(n, [id]);
  }
  for (const [n, ids] of byCount)
    yield* count(
      sql`UPDATE webhook_endpoints SET filtered_count = filtered_count + ${n}
          WHERE ${ctx.dialect.isIn(
            raw("id"),
            ids.sort((a, b) => a - b),
            "bigint",
          )}`,
    );
}
