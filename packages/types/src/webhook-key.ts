import { decodeBase64, isBase64 } from "./base64.js";
import { MIN_SECRET_BYTES } from "./limits.js";
import { InvalidWebhookSecretError } from "./webhook-secret-error.js";

/** A decoded key; its prefix chose the scheme. */
export type WebhookKey =
  /** `whsec_` (or no prefix, like the reference library): Standard Webhooks v1, HMAC-SHA256. */
  | { readonly scheme: "v1"; readonly type: "secret"; readonly key: Uint8Array }
  /** `whsk_`: v1a signing key, the 32-byte ed25519 seed, optionally followed by its 32-byte public key. */
  | {
      readonly scheme: "v1a";
      readonly type: "signing";
      readonly seed: Uint8Array;
      readonly publicKey?: Uint8Array;
    }
  /** `whpk_`: v1a public key, the 32 raw bytes. */
  | { readonly scheme: "v1a"; readonly type: "public"; readonly publicKey: Uint8Array };

const ED25519_BYTES = 32;

function decode(encoded: string, what: string): Uint8Array {
  if (!isBase64(encoded))
    throw new InvalidWebhookSecretError(`Webhook ${what} must be base64 after its prefix`);
  return decodeBase64(encoded);
}

/**
 * Decodes a Standard Webhooks key by its prefix: `whsec_` (v1 secret, at least MIN_SECRET_BYTES),
 * `whsk_` (v1a signing key: 32-byte seed, or seed and public key as Svix issues them, 64 bytes) or
 * `whpk_` (v1a public key, 32 bytes). Base64 padding is optional. The message never repeats the key.
 */
export function parseWebhookKey(text: string): WebhookKey {
  if (typeof text !== "string" || text.length === 0) {
    throw new InvalidWebhookSecretError("Webhook secret must be a non-empty string");
  }
  if (text.startsWith("whsk_")) {
    const bytes = decode(text.slice(5), "signing key (whsk_)");
    if (bytes.length === ED25519_BYTES) return { scheme: "v1a", type: "signing", seed: bytes };
    if (bytes.length === 2 * ED25519_BYTES) {
      return {
        scheme: "v1a",
        type: "signing",
        seed: bytes.subarray(0, ED25519_BYTES),
        publicKey: bytes.subarray(ED25519_BYTES),
      };
    }
    throw new InvalidWebhookSecretError(
      "Webhook signing key (whsk_) must decode to a 32-byte ed25519 seed, or the seed and its 32-byte public key",
    );
  }
  if (text.startsWith("whpk_")) {
    const bytes = decode(text.slice(5), "public key (whpk_)");
    if (bytes.length !== ED25519_BYTES) {
      throw new InvalidWebhookSecretError("Webhook public key (whpk_) must decode to 32 bytes");
    }
    return { scheme: "v1a", type: "public", publicKey: bytes };
  }
  const key = decode(text.startsWith("whsec_") ? text.slice(6) : text, "secret");
  if (key.length < MIN_SECRET_BYTES) {
    throw new InvalidWebhookSecretError(`Webhook secret must decode to at least ${MIN_SECRET_BYTES} bytes`);
  }
  return { scheme: "v1", type: "secret", key };
}
