import { createHash, createHmac, randomBytes } from "node:crypto";
import type { PortalCredentialRows } from "./portal-credential-rows.js";

/** What a portal link's credential starts with (it sits in the link's fragment). */
export const PORTAL_LINK_PREFIX = "psl_";
/** What a portal session starts with (the portal page sends it as its bearer). */
export const PORTAL_SESSION_PREFIX = "pps_";

/** A portal link can be opened for an hour unless asked otherwise, and for a week at most. */
export const PORTAL_LINK_DEFAULT_TTL_MS = 60 * 60_000;
export const PORTAL_LINK_MAX_TTL_MS = 7 * 24 * 60 * 60_000;
/**
 * What a link is exchanged for lasts an hour: a short session, so a portal left open (or a session
 * copied out of a tab) does not outlive an afternoon; the operator issues a new link after that.
 */
export const PORTAL_SESSION_TTL_MS = 60 * 60_000;

const CREDENTIAL = /^(psl|pps)_[A-Za-z0-9_-]{43}$/;

/** A link's credential or a session, and when it stops. */
export interface IssuedCredential {
  credential: string;
  expiresAt: Date;
}

/**
 * A subscriber's way into its portal (issue 37): the operator issues a link; the portal page exchanges it,
 * once, for a short session; the session ends when it expires, when the page signs out, when the
 * operator revokes the subscriber's links, when its token is rotated and when it is removed.
 */
export interface PortalAccess {
  /** A link's credential opening `subscriberId`'s portal once, until it expires. */
  issueLink(subscriberId: number, ttlMs?: number): Promise<IssuedCredential>;
  /** Spends a link on a session; undefined for a link that is unknown, used, expired or revoked. */
  exchange(link: string): Promise<(IssuedCredential & { subscriberId: number }) | undefined>;
  /** The subscriber a live session opens; undefined for anything else. */
  sessionSubscriber(session: string): Promise<number | undefined>;
  /** Ends a session (signing out); false when it was not a live session. */
  endSession(session: string): Promise<boolean>;
  /** Ends every link and session of a subscriber; answers how many there were. */
  revoke(subscriberId: number): Promise<number>;
}

/**
 * By digest only: 256 random bits leave nothing to guess, so a plain SHA-256 would do; keyed with the
 * embedder's `portalSecret` (HMAC-SHA256), a change of that secret also ends every link and session.
 */
const digestWith = (key: string | undefined) => (credential: string) =>
  key === undefined
    ? createHash("sha256").update(credential).digest("base64url")
    : createHmac("sha256", key).update(credential).digest("base64url");
const draw = (prefix: string) => `${prefix}${randomBytes(32).toString("base64url")}`;

/** Portal access on the store's credential table, each credential shown once and kept by digest. */
export function createPortalAccess(
  rows: PortalCredentialRows,
  options: { now?: () => number; sessionTtlMs?: number; key?: string } = {},
): PortalAccess {
  const digest = digestWith(options.key);
  const now = options.now ?? Date.now;
  const sessionTtlMs = options.sessionTtlMs ?? PORTAL_SESSION_TTL_MS;
  const shaped = (candidate: string, prefix: string) =>
    candidate.startsWith(prefix) && CREDENTIAL.test(candidate);
  return {
    async issueLink(subscriberId, ttlMs = PORTAL_LINK_DEFAULT_TTL_MS) {
      if (!Number.isSafeInteger(subscriberId) || subscriberId < 1)
        throw new RangeError("A portal link is for a subscriber id, a positive integer");
      if (!Number.isSafeInteger(ttlMs) || ttlMs < 1 || ttlMs > PORTAL_LINK_MAX_TTL_MS)
        throw new RangeError(`A portal link lasts 1 ms to ${PORTAL_LINK_MAX_TTL_MS} ms`);
      const at = now();
      // Expired rows go as new ones come: the table holds what is live, and a little more.
      await rows.sweep(at);
      const credential = draw(PORTAL_LINK_PREFIX);
      await rows.insert(digest(credential), "link", { subscriberId, expiresAt: at + ttlMs });
      return { credential, expiresAt: new Date(at + ttlMs) };
    },
    async exchange(link) {
      if (!shaped(link, PORTAL_LINK_PREFIX)) return undefined;
      const at = now();
      // Deleted as it is read: of two exchanges of one link, on any process, one finds it.
      const taken = await rows.take(digest(link), "link", at);
      if (taken === undefined) return undefined;
      const credential = draw(PORTAL_SESSION_PREFIX);
      const expiresAt = at + sessionTtlMs;
      await rows.insert(digest(credential), "session", { subscriberId: taken.subscriberId, expiresAt });
      return { credential, expiresAt: new Date(expiresAt), subscriberId: taken.subscriberId };
    },
    async sessionSubscriber(session) {
      if (!shaped(session, PORTAL_SESSION_PREFIX)) return undefined;
      return (await rows.find(digest(session), "session", now()))?.subscriberId;
    },
    async endSession(session) {
      if (!shaped(session, PORTAL_SESSION_PREFIX)) return false;
      return rows.remove(digest(session), "session");
    },
    revoke: (subscriberId) => rows.removeAll(subscriberId),
  };
}
