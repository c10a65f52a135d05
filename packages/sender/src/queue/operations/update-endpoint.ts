import type { Endpoint, EndpointChanges, SubscriberScope } from "../../outbox.js";
import { type Operation, row } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { type EndpointRow, toEndpoint } from "../rows.js";
import { param, raw, sql } from "../sql.js";
import { ownedBy } from "../subscriber-scope.js";
import { checkEndpointInput, checkFilterTypes, requireTokenWhereNeeded } from "./check-endpoint-input.js";
import { sealEndpointValues } from "./seal-endpoint-values.js";

/**
 * URL, token, secrets, signature header names, static headers and filter changed in one statement; the next attempt, even one already queued, uses them.
 * A subscriber's endpoint given another URL is unverified again: the new URL's owner has not asked for
 * anything, and what it has queued waits until it is verified.
 */
export function* updateEndpoint(
  ctx: QueueContext,
  id: number,
  changes: EndpointChanges,
  scope?: SubscriberScope,
): Operation<Endpoint | undefined> {
  const checked = checkEndpointInput(changes, ctx.catalog);
  if (typeof checked.filter === "string" && checked.eventTypes === undefined && ctx.catalog) {
    // A new filter checked against the payloads of the types the endpoint already lists.
    const current = yield* row<EndpointRow>(
      sql`SELECT * FROM webhook_endpoints WHERE id = ${id} AND ${ownedBy(raw("subscriber_id"), scope)}`,
    );
    if (!current) return undefined;
    // Read from the column: the row's sealed values are not opened for this.
    checkFilterTypes(checked.filter, listedEventTypes(current), ctx.catalog);
  }
  if (checked.token === null || checked.eventTypes !== undefined) {
    // Without a token after this change: what it will receive must need none.
    const current = yield* row<EndpointRow>(
      sql`SELECT * FROM webhook_endpoints WHERE id = ${id} AND ${ownedBy(raw("subscriber_id"), scope)}`,
    );
    if (!current) return undefined;
    const tokenless = checked.token === null || (checked.token === undefined && current.token === "");
    // The list read from its column, as above: the row's sealed values (token, secrets, headers) are
    // opened only by the store's codec, and not for this.
    if (tokenless)
      requireTokenWhereNeeded(
        checked.eventTypes === undefined ? listedEventTypes(current) : checked.eventTypes,
        ctx.catalog,
      );
  }
  const sealed = yield* sealEndpointValues(ctx, checked);
  // null is a change too (every message again): only an absent list leaves it as it is.
  const { eventTypes, rateLimit } = checked;
  const limitChanged = rateLimit === undefined ? 0 : 1;
  const style = checked.signatureHeaders;
  const headersChanged = sealed.headers === undefined ? 0 : 1;
  const updated = yield* row<EndpointRow>(
    sql`UPDATE webhook_endpoints SET
          verified_at = CASE WHEN ${param(checked.url ?? null, "text")} IS NULL OR ${
            checked.url ?? null
          } = url THEN verified_at ELSE NULL END,
          url = COALESCE(${checked.url ?? null}, url),
          token = COALESCE(${sealed.token ?? null}, token), secrets = COALESCE(${sealed.secrets ?? null}, secrets),
          event_types = CASE WHEN ${eventTypes === undefined ? 0 : 1} = 1 THEN ${
            eventTypes ? JSON.stringify(eventTypes) : null
          } ELSE event_types END,
          rate_limit = CASE WHEN ${limitChanged} = 1 THEN ${param(rateLimit ?? null, "int")} ELSE rate_limit END,
          rate_tokens = CASE WHEN ${limitChanged} = 1 THEN NULL ELSE rate_tokens END,
          rate_at = CASE WHEN ${limitChanged} = 1 THEN NULL ELSE rate_at END,
          signature_headers = CASE WHEN ${style === undefined ? 0 : 1} = 1 THEN ${
            style === "svix" ? "svix" : null
          } ELSE signature_headers END,
          headers = CASE WHEN ${headersChanged} = 1 THEN ${sealed.headers ?? null} ELSE headers END,
          filter = CASE WHEN ${checked.filter === undefined ? 0 : 1} = 1 THEN ${checked.filter ?? null} ELSE filter END
        WHERE id = ${id} AND ${ownedBy(raw("subscriber_id"), scope)} RETURNING *`,
  );
  return updated ? toEndpoint(updated, ctx.codec.open) : undefined;
}

/** The event types a stored endpoint lists (null: every type), read from its column alone. */
function listedEventTypes(row: EndpointRow): string[] | null {
  return row.event_types ? (JSON.parse(row.event_types) as string[]) : null;
}
