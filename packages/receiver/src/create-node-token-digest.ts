import * as nodeCrypto from "node:crypto";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { TokenDigest } from "./token-digest.js";

/**
 * SHA-256 of the token prefixed with a per-process random key. The digests never leave the
 * process, so the secret prefix does what an HMAC key would, and the one-shot `hash()` costs a
 * fraction of building an `Hmac` object on every request.
 */
export function createNodeTokenDigest(): TokenDigest {
  const key = randomBytes(32);
  const prefix = key.toString("hex");
  // `crypto.hash` arrived in Node 20.12; older 20.x builds an HMAC per call instead.
  const hash = (nodeCrypto as { hash?: typeof nodeCrypto.hash }).hash;
  return {
    digest:
      hash === undefined
        ? (token) => createHmac("sha256", key).update(token, "utf8").digest()
        : (token) => hash("sha256", `${prefix}${token}`, "buffer"),
    equal: (a, b) => timingSafeEqual(a, b),
  };
}
