import { encodeBase64 } from "./base64.js";
import { parseWebhookKey } from "./webhook-key.js";
import { InvalidWebhookSecretError } from "./webhook-secret-error.js";

export { InvalidWebhookSecretError };

/**
 * Decodes a Standard Webhooks v1 secret to its key bytes. The `whsec_` prefix is optional on input,
 * as in the reference library, and so is base64 padding. The message never contains the secret.
 * For any kind of key (`whsk_`, `whpk_` too) use `parseWebhookKey`.
 */
export function parseWebhookSecret(secret: string): Uint8Array {
  const key = parseWebhookKey(secret);
  if (key.type !== "secret")
    throw new InvalidWebhookSecretError("Webhook secret must be whsec_ followed by base64");
  return key.key;
}

/** A new random secret (32 bytes), formatted `whsec_<base64>`. */
export function generateWebhookSecret(): string {
  return `whsec_${encodeBase64(globalThis.crypto.getRandomValues(new Uint8Array(32)))}`;
}
