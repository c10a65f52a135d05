import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** What every subscriber token starts with, so a leaked one is recognisable (and found by scanners). */
export const SUBSCRIBER_TOKEN_PREFIX = "pss_";

const TOKEN = /^pss_[A-Za-z0-9_-]{43}$/;

/** A new token: the prefix and 32 random bytes, base64url. */
export function newSubscriberToken(): string {
  return `${SUBSCRIBER_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
}

/**
 * What the store keeps of a token. A plain SHA-256 is enough: the token has 256 random bits, so there is
 * nothing to guess from the digest, and a lookup by digest needs it to be deterministic.
 */
export function subscriberTokenDigest(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

/** Whether `candidate` can be a token at all (anything else is refused before the database is asked). */
export function isSubscriberTokenShape(candidate: string): boolean {
  return TOKEN.test(candidate);
}

/** Digests compared in constant time, after the lookup by digest found a row. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
