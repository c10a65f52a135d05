import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { InvalidTokenError } from "./errors/invalid-token-error.js";
import { MissingTokenError } from "./errors/missing-token-error.js";
import { headerValue, type IncomingHeaders } from "./header-value.js";

/**
 * Checks `Authorization: Bearer <token>` against several accepted tokens (rotation).
 * Both sides are HMAC'd with a per-process random key first, so `timingSafeEqual` always compares
 * 32 bytes and neither the tokens' lengths nor their contents leak through timing; every accepted
 * token is compared, with no early exit.
 */
export function createTokenChecker(tokens: readonly string[]): (headers: IncomingHeaders) => void {
  const key = randomBytes(32);
  const digest = (token: string) => createHmac("sha256", key).update(token, "utf8").digest();
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
