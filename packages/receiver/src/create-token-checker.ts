import { BEARER_TOKEN_PATTERN } from "@plant-store/types";
import type { ConstantTimeEqual } from "./constant-time-equal.js";
import { InvalidTokenError } from "./errors/invalid-token-error.js";
import { MissingTokenError } from "./errors/missing-token-error.js";
import { headerValue, type IncomingHeaders } from "./header-value.js";

/**
 * `Bearer`, in any case (RFC 7235), then one word. Spaces and tabs around it are forgiven for
 * callers of `verify()` who pass an untrimmed header; anything else before or after is refused.
 */
const AUTHORIZATION = /^[ \t]*bearer[ \t]+(\S+)[ \t]*$/i;

/** Visible ASCII, one byte per character (the rule has checked it). */
function asciiBytes(token: string, into: Uint8Array): Uint8Array {
  // Stryker disable next-line EqualityOperator: equivalent: a write one past the end of a typed array is ignored
  for (let i = 0; i < token.length; i++) into[i] = token.charCodeAt(i);
  return into;
}

/**
 * Checks `Authorization: Bearer <token>` against several accepted tokens (rotation), which the
 * options check has held to the one token rule (`BearerTokenSchema`: visible ASCII). A presented
 * token outside that rule is refused before any comparison.
 *
 * Constant time in the tokens' content: each accepted token costs exactly one constant-time
 * comparison of its own length on every request, with no early exit on a match. A presented token
 * of the same length is compared with it; one of another length cannot match, and the token is
 * compared with itself instead (same work, result ignored). So how long a check takes depends on
 * the presented token's length and on which lengths are accepted, never on how many of its
 * characters are right. A token's length is not its secret (the issue's tokens are fixed-format
 * random strings); hiding it too would mean hashing every presented token (a SHA-256 per request,
 * which this replaced as the receiver's largest verification cost after the HMAC itself).
 */
export function createTokenChecker(
  tokens: readonly string[],
  equal: ConstantTimeEqual,
): (headers: IncomingHeaders) => void {
  const accepted = tokens.map((token) => asciiBytes(token, new Uint8Array(token.length)));
  // One buffer per accepted length receives the presented token, so a request allocates nothing.
  const scratch = new Map(accepted.map((token) => [token.length, new Uint8Array(token.length)]));
  return (headers) => {
    // No header ("undefined") and a repeated one (headerValue's "duplicate") never match either.
    const match = AUTHORIZATION.exec(String(headerValue(headers, "authorization")));
    if (match === null) throw new MissingTokenError();
    const candidate = match[1] as string;
    if (!BEARER_TOKEN_PATTERN.test(candidate)) throw new InvalidTokenError();
    const buffer = scratch.get(candidate.length);
    const presented = buffer === undefined ? undefined : asciiBytes(candidate, buffer);
    let ok = false;
    for (const token of accepted) {
      const sameLength = presented?.length === token.length;
      const same = equal(sameLength ? (presented as Uint8Array) : token, token);
      ok = (sameLength && same) || ok;
    }
    if (!ok) throw new InvalidTokenError();
  };
}
