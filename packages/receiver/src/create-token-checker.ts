import * as nodeCrypto from "node:crypto";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { InvalidTokenError } from "./errors/invalid-token-error.js";
import { MissingTokenError } from "./errors/missing-token-error.js";
import { headerValue, type IncomingHeaders } from "./header-value.js";

/**
 * Checks `Authorization: Bearer <token>` against several accepted tokens (rotation).
 * Both sides are hashed (SHA-256, prefixed with a per-process random key) first, so `timingSafeEqual`
 * always compares 32 bytes and neither the tokens' lengths nor their contents leak through timing;
 * every accepted token is compared, with no early exit. The digests never leave the process, so a
 * secret prefix does what an HMAC key would, and the one-shot `hash()` costs a fraction of
 * building an `Hmac` object on every request.
 */
export function createTokenChecker(tokens: readonly string[]): (headers: IncomingHeaders) => void {
  const key = randomBytes(32);
  const prefix = key.toString("hex");
  // `crypto.hash` arrived in Node 20.12; older 20.x builds an HMAC per call instead.
  const hash = (nodeCrypto as { hash?: typeof nodeCrypto.hash }).hash;
  const digest: (token: string) => Buffer =
    hash === undefined
      ? (token) => createHmac("sha256", key).update(token, "utf8").digest()
      : (token) => hash("sha256", `${prefix}${token}`, "buffer");
  const accepted = tokens.map(digest);
  return (headers) => {
    const authorization = headerValue(headers, "authorization");
    if (authorization === undefined || authorization === "duplicate") throw new MissingTokenError();
    // RFC 7235: the scheme is case-insensitive; RFC 6750 b64token is one space-free word.
    const match = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match?.[1] === undefined) throw new MissingTokenError();
    const candidate = digest(match[1]);
    let ok = false;
    for (const token of accepted) {
      ok = timingSafeEqual(candidate, token) || ok;
    }
    if (!ok) throw new InvalidTokenError();
  };
}
