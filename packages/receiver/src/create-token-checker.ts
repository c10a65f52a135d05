import { InvalidTokenError } from "./errors/invalid-token-error.js";
import { MissingTokenError } from "./errors/missing-token-error.js";
import { headerValue, type IncomingHeaders } from "./header-value.js";
import type { Maybe } from "./maybe.js";
import type { TokenDigest } from "./token-digest.js";

/**
 * Checks `Authorization: Bearer <token>` against several accepted tokens (rotation). Both sides are
 * digested first (a keyed SHA-256), so the constant-time comparison always sees 32 bytes and neither
 * the tokens' lengths nor their contents leak through timing; every accepted token is compared,
 * with no early exit. On node:crypto the check finishes at once; on Web Crypto it is a promise.
 */
export function createTokenChecker(
  tokens: readonly string[],
  platform: TokenDigest,
): (headers: IncomingHeaders) => Maybe<void> {
  const digests = tokens.map((token) => platform.digest(token));
  let accepted: Uint8Array[] | undefined = digests.some((d) => d instanceof Promise)
    ? undefined
    : (digests as Uint8Array[]);
  const compare = (candidate: Uint8Array, against: Uint8Array[]) => {
    let ok = false;
    for (const token of against) ok = platform.equal(candidate, token) || ok;
    if (!ok) throw new InvalidTokenError();
  };
  return (headers) => {
    const authorization = headerValue(headers, "authorization");
    if (authorization === undefined || authorization === "duplicate") throw new MissingTokenError();
    // RFC 7235: the scheme is case-insensitive; RFC 6750 b64token is one space-free word.
    const match = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match?.[1] === undefined) throw new MissingTokenError();
    const candidate = platform.digest(match[1]);
    if (accepted !== undefined && !(candidate instanceof Promise)) return compare(candidate, accepted);
    return Promise.all([candidate, Promise.all(digests)]).then(([digest, all]) => {
      accepted = all;
      compare(digest, all);
    });
  };
}
