import { createHmac, timingSafeEqual } from "node:crypto";

/** What a portal link's credential starts with, so the guard knows which check to make. */
export const PORTAL_LINK_PREFIX = "psl_";

/** A portal link lasts an hour unless asked otherwise, and at most a week. */
export const PORTAL_LINK_DEFAULT_TTL_MS = 60 * 60_000;
export const PORTAL_LINK_MAX_TTL_MS = 7 * 24 * 60 * 60_000;

export interface PortalLinks {
  /** A credential opening `subscriberId`'s portal until `expiresAt`. */
  issue(subscriberId: number, ttlMs?: number): { credential: string; expiresAt: Date };
  /** The subscriber a live, unaltered credential opens; undefined for anything else. */
  verify(candidate: string): number | undefined;
}

const LABEL = "plant-store-webhooks portal link v1";
const LINK = /^psl_([1-9][0-9]{0,15})\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{43})$/;

/**
 * Portal links signed with a key derived from the admin token (an HMAC of a fixed label, never the
 * token): `psl_<subscriber>.<expiry, base 36 ms>.<HMAC-SHA256 of both>`. Nothing is stored, so a link
 * holds on every `serve` process given the same token and across restarts; it stops at its expiry,
 * when the admin token is rotated, or when its subscriber is removed (the guard looks the subscriber
 * up). The subscriber id is inside the MAC: a link cannot be turned into another subscriber's.
 */
export function createPortalLinks(options: { adminToken: string; now?: () => number }): PortalLinks {
  const now = options.now ?? Date.now;
  const key = createHmac("sha256", options.adminToken).update(LABEL).digest();
  const mac = (body: string) => createHmac("sha256", key).update(body).digest();
  return {
    issue(subscriberId, ttlMs = PORTAL_LINK_DEFAULT_TTL_MS) {
      if (!Number.isSafeInteger(subscriberId) || subscriberId < 1)
        throw new RangeError("A portal link is for a subscriber id, a positive integer");
      if (!Number.isSafeInteger(ttlMs) || ttlMs < 1 || ttlMs > PORTAL_LINK_MAX_TTL_MS)
        throw new RangeError(`A portal link lasts 1 ms to ${PORTAL_LINK_MAX_TTL_MS} ms`);
      const expiresAt = now() + ttlMs;
      const body = `${subscriberId}.${expiresAt.toString(36)}`;
      return {
        credential: `${PORTAL_LINK_PREFIX}${body}.${mac(body).toString("base64url")}`,
        expiresAt: new Date(expiresAt),
      };
    },
    verify(candidate) {
      const match = LINK.exec(candidate);
      if (!match) return undefined;
      const [, subscriber, expiry, signature] = match as unknown as [string, string, string, string];
      // Compared as text: base64url's last character carries 2 unused bits, so decoding first would
      // let four spellings of one signature through.
      const expected = Buffer.from(mac(`${subscriber}.${expiry}`).toString("base64url"));
      if (!timingSafeEqual(Buffer.from(signature), expected)) return undefined;
      const expiresAt = Number.parseInt(expiry, 36);
      if (!Number.isSafeInteger(expiresAt) || expiresAt <= now()) return undefined;
      return Number(subscriber);
    },
  };
}
