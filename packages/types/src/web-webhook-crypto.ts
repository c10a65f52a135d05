import { decodeBase64, encodeBase64 } from "./base64.js";
import type { SignedBody, WebhookCrypto } from "./webhook-crypto.js";
import { InvalidWebhookSecretError } from "./webhook-secret-error.js";

// DER header of an ed25519 PKCS#8 private key (RFC 8410): Web Crypto imports private keys only as
// PKCS#8 or JWK, never as a raw seed.
const PKCS8_ED25519 = [
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];
const ED25519 = { name: "Ed25519" } as const;
const utf8 = new TextEncoder();

// Named from the global `crypto` so the types come from whichever lib declares it (DOM, workers or @types/node).
type SubtleCrypto = typeof globalThis.crypto.subtle;
type CryptoKey = Awaited<ReturnType<SubtleCrypto["importKey"]>>;
type CryptoKeyPair = { privateKey: CryptoKey; publicKey: CryptoKey };

const subtle = (): SubtleCrypto => globalThis.crypto.subtle;

/** Copies into a fresh ArrayBuffer-backed array, as SubtleCrypto's BufferSource wants. */
function bytesOf(...parts: (string | Uint8Array)[]): Uint8Array<ArrayBuffer> {
  const encoded = parts.map((part) => (typeof part === "string" ? utf8.encode(part) : part));
  const out = new Uint8Array(encoded.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of encoded) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function fromBase64Url(text: string | undefined): Uint8Array {
  // Stryker disable next-line StringLiteral: unreachable: an exported ed25519 JWK always holds x (and d for a private key)
  const base64 = (text ?? "").replace(/-/g, "+").replace(/_/g, "/");
  return decodeBase64(base64);
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  // Stryker disable next-line ConditionalExpression: equivalent here: its one caller compares two 32-byte public keys
  if (a.length !== b.length) return false;
  let diff = 0;
  // Stryker disable next-line EqualityOperator: equivalent: one step past the end XORs undefined with undefined, which is 0
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

const message = (prefix: string, body: SignedBody) => bytesOf(prefix, body);

/**
 * The signing core's primitives on Web Crypto (`globalThis.crypto.subtle`), for Workers, Deno, Bun,
 * browsers and edge runtimes: no Node built-in. Keys are imported once, on first use.
 */
export const webWebhookCrypto: WebhookCrypto = {
  hmacSha256(key) {
    let imported: Promise<CryptoKey> | undefined;
    return async (prefix, body) => {
      // Stryker disable next-line BooleanLiteral: equivalent through the API: the key object never leaves this closure, so whether it could be exported is unobservable
      imported ??= subtle().importKey("raw", bytesOf(key), { name: "HMAC", hash: "SHA-256" }, false, [
        "sign",
      ]);
      return encodeBase64(new Uint8Array(await subtle().sign("HMAC", await imported, message(prefix, body))));
    };
  },
  ed25519Signer(seed, publicKey) {
    let imported: Promise<CryptoKey> | undefined;
    const load = async () => {
      const key = await subtle().importKey(
        "pkcs8",
        bytesOf(new Uint8Array(PKCS8_ED25519), seed),
        ED25519,
        true,
        ["sign"],
      );
      if (publicKey !== undefined) {
        const derived = fromBase64Url((await subtle().exportKey("jwk", key)).x);
        if (!equal(derived, publicKey)) {
          throw new InvalidWebhookSecretError(
            "Webhook signing key (whsk_): the public key half does not match the seed",
          );
        }
      }
      return key;
    };
    return async (prefix, body) => {
      imported ??= load();
      return new Uint8Array(await subtle().sign(ED25519, await imported, message(prefix, body)));
    };
  },
  ed25519Verifier(publicKey) {
    let imported: Promise<CryptoKey> | undefined;
    return async (prefix, body, signature) => {
      // Stryker disable next-line BooleanLiteral: equivalent through the API (a public key's exportability is unobservable here)
      imported ??= subtle().importKey("raw", bytesOf(publicKey), ED25519, false, ["verify"]);
      return subtle().verify(ED25519, await imported, bytesOf(signature), message(prefix, body));
    };
  },
  async generateEd25519() {
    const pair = (await subtle().generateKey(ED25519, true, ["sign", "verify"])) as CryptoKeyPair;
    const jwk = await subtle().exportKey("jwk", pair.privateKey);
    return { seed: fromBase64Url(jwk.d), publicKey: fromBase64Url(jwk.x) };
  },
  toBase64: encodeBase64,
  fromBase64: decodeBase64,
};
