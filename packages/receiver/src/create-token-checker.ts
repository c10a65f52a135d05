import { BEARER_TOKEN_PATTERN, equalAt } from "@plant-store/types";
import { InvalidTokenError } from "./errors/invalid-token-error.js";
import { MissingTokenError } from "./errors/missing-token-error.js";
import { headerValue, type IncomingHeaders } from "./header-value.js";

/**
 * `Bearer`, in any case (RFC 7235), then one word. Spaces and tabs around it are forgiven for
 * callers of `verify()` who pass an untrimmed header; anything else before or after is refused.
 */
const AUTHORIZATION = /^[ \t]*bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * The token of an `Authorization` value, held to the token rule; `undefined` when the value is not
 * `Bearer <token>`. Throws `InvalidTokenError` for a token outside the rule.
 */
function presentedToken(value: string | undefined): string | undefined {
  // Stryker disable next-line StringLiteral: equivalent: the pattern below does not match "duplicate" either; this only skips it
  if (value === undefined || value === "duplicate") return undefined;
  // "Bearer <token>", as every sender writes it, needs no pattern: what follows the one space is
  // the token exactly when the token rule (no spaces, tabs or other characters) holds for all of it.
  // Stryker disable next-line all: equivalent: a fast path; the pattern below accepts every value it takes, with the same token
  if (value.startsWith("Bearer ")) {
    const rest = value.slice(7);
    if (BEARER_TOKEN_PATTERN.test(rest)) return rest;
  }
  const match = AUTHORIZATION.exec(value);
  if (match === null) return undefined;
  const token = match[1] as string;
  if (!BEARER_TOKEN_PATTERN.test(token)) throw new InvalidTokenError();
  return token;
}

/**
 * Checks `Authorization: Bearer <token>` against several accepted tokens (rotation), which the
 * options check has held to the one token rule (`BearerTokenSchema`: visible ASCII). A presented
 * token outside that rule is refused before any comparison.
 *
 * Constant time in the tokens' content: each accepted token costs exactly one constant-time
 * comparison (`equalAt`) of its own length on every request, with no early exit on a match. A
 * presented token of the same length is compared with it; one of another length cannot match, and
 * the token is compared with itself instead (same work, result ignored). So how long a check takes
 * depends on the presented token's length and on which lengths are accepted, never on how many of
 * its characters are right. A token's length is not its secret (the issue's tokens are fixed-format
 * random strings); hiding it too would mean hashing every presented token (a SHA-256 per request,
 * which this replaced as the receiver's largest verification cost after the HMAC itself).
 */
export function createTokenChecker(tokens: readonly string[]): (headers: IncomingHeaders) => void {
  const accepted = [...tokens];
  return (headers) => {
    // No header and a repeated one (headerValue's "duplicate") never match either.
    const presented = presentedToken(headerValue(headers, "authorization"));
    if (presented === undefined) throw new MissingTokenError();
    let ok = false;
    for (const token of accepted) {
      const sameLength = presented.length === token.length;
      const same = equalAt(sameLength ? presented : token, 0, token);
      ok = (sameLength && same) || ok;
    }
    if (!ok) throw new InvalidTokenError();
  };
}
