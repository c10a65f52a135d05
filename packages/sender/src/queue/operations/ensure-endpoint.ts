import type { AddEndpointInput, EnsuredEndpoint } from "../../outbox.js";
import { type Operation, row } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { type EndpointRow, toEndpoint } from "../rows.js";
import { param, sql } from "../sql.js";
import { addEndpoint } from "./add-endpoint.js";
import { checkEndpointInput } from "./check-endpoint-input.js";
import { updateEndpoint } from "./update-endpoint.js";

/** Serialises `ensureEndpoint` calls, so two processes starting at once add one endpoint, not two. */
const ENSURE_LOCK = 0x706c6565;

/**
 * The endpoint with this URL of the same owner (the oldest, should there be several), made to have this
 * token, these secrets and these subscriptions; added when there is none. Another owner's endpoint with
 * the same URL is never touched: a service starting must not rewrite a subscriber's token or secrets. Its status is left alone: a service restarting must not re-enable an
 * endpoint an operator or the store disabled.
 */
export function* ensureEndpoint(ctx: QueueContext, input: AddEndpointInput): Operation<EnsuredEndpoint> {
  const checked = checkEndpointInput(input, ctx.catalog);
  yield* ctx.dialect.lock(ENSURE_LOCK);
  const found = yield* row<EndpointRow>(
    sql`SELECT * FROM webhook_endpoints WHERE url = ${checked.url}
          AND subscriber_id IS NOT DISTINCT FROM ${param(checked.subscriberId ?? null, "bigint")}
        ORDER BY id LIMIT 1${ctx.dialect.forUpdate}`,
  );
  if (!found) return { endpoint: yield* addEndpoint(ctx, checked), created: true, updated: false };
  const endpoint = toEndpoint(found, ctx.codec.open);
  const sameList = (a: readonly string[] | null, b: readonly string[] | null) =>
    a === b ||
    (a !== null && b !== null && a.length === b.length && a.every((item, index) => item === b[index]));
  const eventTypes = checked.eventTypes ?? null;
  const signatureHeaders = checked.signatureHeaders ?? "standard";
  const headers = checked.headers ?? {};
  const sameHeaders = (a: Record<string, string>, b: Record<string, string>) =>
    sameList(Object.keys(a), Object.keys(b)) && Object.keys(a).every((name) => a[name] === b[name]);
  const same =
    endpoint.token === checked.token &&
    sameList(endpoint.secrets, checked.secrets) &&
    sameList(endpoint.eventTypes, eventTypes) &&
    endpoint.signatureHeaders === signatureHeaders &&
    sameHeaders(endpoint.headers, headers) &&
    endpoint.filter === (checked.filter ?? null);
  if (same) return { endpoint, created: false, updated: false };
  const updated = yield* updateEndpoint(ctx, endpoint.id, {
    token: checked.token ?? null,
    secrets: checked.secrets,
    eventTypes,
    signatureHeaders,
    headers,
    filter: checked.filter ?? null,
  });
  return { endpoint: updated ?? endpoint, created: false, updated: true };
}
