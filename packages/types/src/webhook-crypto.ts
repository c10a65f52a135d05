import type { Maybe } from "./maybe.js";

/** The bytes Standard Webhooks signs are `prefix` (`id.timestamp.`) followed by the raw body. */
export type SignedBody = string | Uint8Array;

/**
 * The primitives the signing core needs, one implementation per runtime: `node:crypto` (plain
 * values) and Web Crypto (promises). Everything else (key formats, header rules, tolerance, input
 * checks) lives once in `createSigningCore`.
 */
export interface WebhookCrypto {
  /**
   * HMAC-SHA256 under `key`, prepared once per key, as canonical padded base64 (44 characters): the
   * spelling the signature header carries, so neither signing nor verifying decodes or re-encodes.
   */
  hmacSha256(key: Uint8Array): (prefix: string, body: SignedBody) => Maybe<string>;
  /**
   * An ed25519 signer for a 32-byte seed. With `publicKey`, the pair is checked: a `whsk_` key whose
   * second half is not the seed's public key is refused (`InvalidWebhookSecretError`).
   */
  ed25519Signer(
    seed: Uint8Array,
    publicKey?: Uint8Array,
  ): (prefix: string, body: SignedBody) => Maybe<Uint8Array>;
  ed25519Verifier(
    publicKey: Uint8Array,
  ): (prefix: string, body: SignedBody, signature: Uint8Array) => Maybe<boolean>;
  /** A new ed25519 key pair: the 32-byte seed and the 32-byte raw public key. */
  generateEd25519(): Maybe<{ seed: Uint8Array; publicKey: Uint8Array }>;
  toBase64(bytes: Uint8Array): string;
  /** Decodes base64 that is already known to be well-formed. */
  fromBase64(text: string): Uint8Array;
}
