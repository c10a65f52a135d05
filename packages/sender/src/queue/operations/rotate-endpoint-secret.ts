import { generateWebhookSecret } from "@plant-store/types";
import { TooManySecretsError } from "../../errors.js";
import { MAX_ENDPOINT_SECRETS, type RotatedSecret, type SubscriberScope } from "../../outbox.js";
import { type Operation, row } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { type EndpointRow, toEndpoint } from "../rows.js";
import { raw, sql } from "../sql.js";
import { ownedBy } from "../subscriber-scope.js";
import { updateEndpoint } from "./update-endpoint.js";

/**
 * Standard Webhooks' rotation, read and written under one lock: the new secret joins the current ones
 * (each signs every attempt), so the receiver keeps verifying while it switches; the old ones are dropped
 * later with `updateEndpoint`.
 */
export function* rotateEndpointSecret(
  ctx: QueueContext,
  id: number,
  secret: string = generateWebhookSecret(),
  scope?: SubscriberScope,
): Operation<RotatedSecret | undefined> {
  const found = yield* row<EndpointRow>(
    sql`SELECT * FROM webhook_endpoints WHERE id = ${id} AND ${ownedBy(raw("subscriber_id"), scope)}${ctx.dialect.forUpdate}`,
  );
  if (!found) return undefined;
  const endpoint = toEndpoint(found, ctx.codec.open);
  if (endpoint.secrets.includes(secret)) return { endpoint, secret };
  if (endpoint.secrets.length >= MAX_ENDPOINT_SECRETS)
    throw new TooManySecretsError(
      `Endpoint ${id} already signs with ${MAX_ENDPOINT_SECRETS} secrets: drop old ones (updateEndpoint) first`,
    );
  const rotated = yield* updateEndpoint(ctx, id, { secrets: [...endpoint.secrets, secret] });
  return { endpoint: rotated ?? endpoint, secret };
}
