import type { AddEndpointInput, Endpoint } from "../../outbox.js";
import { type Operation, row } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { type EndpointRow, toEndpoint } from "../rows.js";
import { sql } from "../sql.js";
import { checkEndpointInput, requireTokenWhereNeeded } from "./check-endpoint-input.js";
import { requireSubscribers } from "./require-subscribers.js";
import { sealEndpointValues } from "./seal-endpoint-values.js";

/** A subscriber's new endpoint starts unverified: it receives nothing until `markEndpointVerified`. */
export function* addEndpoint(ctx: QueueContext, input: AddEndpointInput): Operation<Endpoint> {
  const { url, token, secrets, eventTypes, rateLimit, signatureHeaders, headers, filter } =
    checkEndpointInput(input, ctx.catalog);
  if (token === undefined) requireTokenWhereNeeded(eventTypes ?? null, ctx.catalog);
  const subscriberId = input.subscriberId ?? null;
  yield* requireSubscribers(ctx, [subscriberId]);
  const sealed = yield* sealEndpointValues(ctx, { token: token ?? null, secrets, headers: headers ?? {} });
  // The default style is stored as NULL, as endpoints made before it have it.
  const style = signatureHeaders === "svix" ? "svix" : null;
  const added = yield* row<EndpointRow>(
    sql`INSERT INTO webhook_endpoints (url, token, secrets, event_types, subscriber_id, rate_limit, signature_headers, headers, filter, created_at)
        VALUES (${url}, ${sealed.token ?? null}, ${sealed.secrets ?? null}, ${
          eventTypes ? JSON.stringify(eventTypes) : null
        }, ${subscriberId}, ${rateLimit ?? null}, ${style}, ${sealed.headers ?? null}, ${filter ?? null}, ${ctx.now}) RETURNING *`,
  );
  return toEndpoint(added as EndpointRow, ctx.codec.open);
}
