import { BearerTokenSchema, WebhookSecretSchema } from "@plant-store/types";
import { InvalidEndpointError } from "../../invalid-endpoint-error.js";
import { type EndpointChanges, MAX_ENDPOINT_SECRETS } from "../../outbox.js";

/**
 * Checks an endpoint's new values before anything is written, so that nothing is stored that could never
 * be sent (a token with a line break) or verified (a secret that is not `whsec_`/`whsk_`); the secrets
 * come back without duplicates, in the order given.
 */
export function checkEndpointInput<C extends EndpointChanges>(changes: C): C {
  if (changes.url !== undefined && !URL.canParse(changes.url))
    throw new InvalidEndpointError("url must be an absolute URL");
  if (changes.token !== undefined && !BearerTokenSchema.safeParse(changes.token).success)
    throw new InvalidEndpointError("token must be visible ASCII characters without spaces (a bearer token)");
  if (changes.secrets === undefined) return changes;
  const secrets = [...new Set(changes.secrets)];
  if (secrets.length === 0 || secrets.length > MAX_ENDPOINT_SECRETS)
    throw new InvalidEndpointError(`An endpoint signs with 1 to ${MAX_ENDPOINT_SECRETS} secrets`);
  if (secrets.some((secret) => !WebhookSecretSchema.safeParse(secret).success))
    throw new InvalidEndpointError("Each secret must be a whsec_ signing secret or a whsk_ signing key");
  return { ...changes, secrets };
}
