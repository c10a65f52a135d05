import * as nodeCrypto from "node:crypto";
import {
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  generateKeyPairSync,
  sign,
  timingSafeEqual,
  verify,
} from "node:crypto";
import type { SignedBody, WebhookCrypto } from "./webhook-crypto.js";
import { InvalidWebhookSecretError } from "./webhook-secret-error.js";

// DER headers of an ed25519 PKCS#8 private key and SPKI public key (RFC 8410), before the 32 raw bytes.
const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_ED25519 = Buffer.from("302a300506032b6570032100", "hex");

const message = (prefix: string, body: SignedBody): Buffer =>
  Buffer.concat([Buffer.from(prefix, "utf8"), typeof body === "string" ? Buffer.from(body, "utf8") : body]);

const fromJwk = (value: string | undefined): Buffer => Buffer.from(value ?? "", "base64url");

// `crypto.hash` (one-shot, Node 20.12+) has no HMAC counterpart, and building an `Hmac` object is
// most of the cost of signing a 60-byte body (about 60 % of it in a profile of the receive path).
const oneShotHash = (nodeCrypto as { hash?: typeof nodeCrypto.hash }).hash;
const BLOCK = 64; // SHA-256's block size in bytes

/**
 * HMAC-SHA256 exactly as RFC 2104 defines it, H((K ^ opad) || H((K ^ ipad) || message)), on two
 * one-shot hashes with the padded keys prepared once. Held to `createHmac` by the shared vectors
 * and by property tests against the reference library; `createHmac` where `crypto.hash` is missing.
 */
function oneShotHmac(
  hash: typeof nodeCrypto.hash,
  key: Uint8Array,
): (prefix: string, body: SignedBody) => Buffer {
  const padded = Buffer.alloc(BLOCK);
  if (key.length > BLOCK) createHash("sha256").update(key).digest().copy(padded);
  else padded.set(key);
  const inner = Buffer.alloc(BLOCK);
  const outer = Buffer.alloc(BLOCK + 32);
  for (let i = 0; i < BLOCK; i++) {
    inner[i] = (padded[i] as number) ^ 0x36;
    outer[i] = (padded[i] as number) ^ 0x5c;
  }
  return (prefix, body) => {
    const prefixBytes = Buffer.byteLength(prefix, "utf8");
    const bodyBytes = typeof body === "string" ? Buffer.byteLength(body, "utf8") : body.length;
    const message = Buffer.allocUnsafe(BLOCK + prefixBytes + bodyBytes);
    inner.copy(message, 0);
    message.write(prefix, BLOCK, "utf8");
    if (typeof body === "string") message.write(body, BLOCK + prefixBytes, "utf8");
    else message.set(body, BLOCK + prefixBytes);
    // `outer` is reused: the call is synchronous, so nothing else can write it in between.
    (hash("sha256", message, "buffer") as Buffer).copy(outer, BLOCK);
    return hash("sha256", outer, "buffer") as Buffer;
  };
}

/** The signing core's primitives on `node:crypto`: every result is a plain value, no promise. */
export const nodeWebhookCrypto: WebhookCrypto = {
  hmacSha256(key) {
    if (oneShotHash !== undefined) return oneShotHmac(oneShotHash, key);
    // A key object made once: given bytes, createHmac would import the key again on every call.
    const secret = createSecretKey(key);
    return (prefix, body) => createHmac("sha256", secret).update(prefix).update(body).digest();
  },
  ed25519Signer(seed, publicKey) {
    const privateKey = createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519, seed]),
      format: "der",
      type: "pkcs8",
    });
    if (publicKey !== undefined) {
      const derived = fromJwk(createPublicKey(privateKey).export({ format: "jwk" }).x);
      if (!derived.equals(publicKey)) {
        throw new InvalidWebhookSecretError(
          "Webhook signing key (whsk_): the public key half does not match the seed",
        );
      }
    }
    return (prefix, body) => sign(null, message(prefix, body), privateKey);
  },
  ed25519Verifier(publicKey) {
    const key = createPublicKey({
      key: Buffer.concat([SPKI_ED25519, publicKey]),
      format: "der",
      type: "spki",
    });
    return (prefix, body, signature) => verify(null, message(prefix, body), key, signature);
  },
  generateEd25519() {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const jwk = privateKey.export({ format: "jwk" });
    void publicKey;
    return { seed: fromJwk(jwk.d), publicKey: fromJwk(jwk.x) };
  },
  equal: (a, b) => a.length === b.length && timingSafeEqual(a, b),
  toBase64: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"),
  fromBase64: (text) => Buffer.from(text, "base64"),
};
