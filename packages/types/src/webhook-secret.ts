import { randomBytes } from "node:crypto";
import { MIN_SECRET_BYTES } from "./limits.js";

const PREFIX = "whsec_";

/** Thrown for a signing secret that is not `whsec_<base64>` with at least MIN_SECRET_BYTES (16) bytes of key. */
export class InvalidWebhookSecretError extends Error {
  readonly code = "ERR_INVALID_WEBHOOK_SECRET";
  override readonly name = "InvalidWebhookSecretError";
}

/**
 * Decodes a Standard Webhooks secret to its key bytes. The `whsec_` prefix is optional on input,
 * as in the reference library. The message never contains the secret.
 */
export function parseWebhookSecret(secret: string): Buffer {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    throw new InvalidWebhookSecretError("Webhook secret must be whsec_ followed by base64");
  }
  const key = Buffer.from(encoded, "base64");
  if (key.length < MIN_SECRET_BYTES) {
    throw new InvalidWebhookSecretError(`Webhook secret must decode to at least ${MIN_SECRET_BYTES} bytes`);
  }
  return key;
}

/** A new random secret (32 bytes), formatted `whsec_<base64>`. */
export function generateWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString("base64");
}
