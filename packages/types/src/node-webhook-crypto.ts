import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto";
import { createNodeHmacSha256 } from "./create-node-hmac-sha256.js";
import type { SignedBody, WebhookCrypto } from "./webhook-crypto.js";
import { InvalidWebhookSecretError } from "./webhook-secret-error.js";

// DER headers of an ed25519 PKCS#8 private key and SPKI public key (RFC 8410), before the 32 raw bytes.
const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_ED25519 = Buffer.from("302a300506032b6570032100", "hex");

const message = (prefix: string, body: SignedBody): Buffer =>
  // Stryker disable next-line ConditionalExpression: equivalent: Buffer.from(bytes) copies the same bytes, only slower
  Buffer.concat([Buffer.from(prefix), typeof body === "string" ? Buffer.from(body) : body]);

// Stryker disable next-line StringLiteral: unreachable: an exported ed25519 JWK always holds x (and d for a private key)
const fromJwk = (value: string | undefined): Buffer => Buffer.from(value ?? "", "base64url");

/** The signing core's primitives on `node:crypto`: every result is a plain value, no promise. */
export const nodeWebhookCrypto: WebhookCrypto = {
  hmacSha256: createNodeHmacSha256,
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
  toBase64: (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"),
  fromBase64: (text) => Buffer.from(text, "base64"),
};
