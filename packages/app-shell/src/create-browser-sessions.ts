import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export interface BrowserSessionsOptions {
  /**
   * The long-lived tokens sessions are signed for: each gives a signing key (an HMAC of a fixed label
   * under the token, never the token itself); the first signs, every one verifies. A session so stays
   * valid across a restart and on every process given the same token, and ends when its token is
   * rotated away.
   */
  tokens: readonly string[];
  /** How long a sign-in code can be exchanged, once. Default 10 minutes. */
  codeTtlMs?: number;
  /** How long a session lasts. Default 24 hours. */
  maxAgeMs?: number;
  /** Unused codes kept at most; beyond, the oldest is dropped. Default 100. */
  maxCodes?: number;
  now?: () => number;
}

/** A browser's session: its bearer token and when it ends. */
export interface BrowserSession {
  token: string;
  expiresAt: Date;
}

/**
 * Short-lived credentials for a page, so a long-lived token never travels in a URL and never stays in
 * a browser. A sign-in code (for a link) is exchanged once, by POST, for a session; so is the
 * long-lived token typed into the page's form. The page keeps the session in its tab's sessionStorage
 * and sends it as `Authorization: Bearer`.
 */
export interface BrowserSessions {
  /** A new single-use code. */
  issueCode(): { code: string; expiresAt: Date };
  /** Spends `code` on a new session; undefined when it is unknown, used or expired. */
  redeemCode(code: string): BrowserSession | undefined;
  /** A new session (the caller has checked the long-lived token). */
  open(): BrowserSession;
  /** Whether `token` is a live session. */
  check(token: string): boolean;
  /** Ends the session `token` in this process; false when it was not a live session. */
  end(token: string): boolean;
}

const LABEL = "plant-store-webhooks browser session v1";
const digest = (value: string) => createHash("sha256").update(value).digest("base64url");

/**
 * A session is `<expiry, base 36 ms>.<16 random bytes>.<HMAC-SHA256 of both>`, base64url: checked by
 * recomputing its MAC in constant time, with nothing stored, so it holds across restarts and across
 * `serve` processes behind one address, and memory does not grow with sign-ins. Signing out is kept
 * in this process (until the session would have expired anyway). Codes are single-use, so they live
 * in this process's memory, by digest: a link works on the process that issued it, until it restarts.
 */
export function createBrowserSessions(options: BrowserSessionsOptions): BrowserSessions {
  const codeTtlMs = options.codeTtlMs ?? 10 * 60_000;
  const maxAgeMs = options.maxAgeMs ?? 24 * 60 * 60_000;
  const maxCodes = options.maxCodes ?? 100;
  const now = options.now ?? Date.now;
  const keys = options.tokens.map((token) => createHmac("sha256", token).update(LABEL).digest());
  const codes = new Map<string, number>();
  const ended = new Map<string, number>();

  const mac = (key: Buffer, body: string) => createHmac("sha256", key).update(body).digest();
  /** The session's expiry when it is one of ours and live, else undefined. */
  const verify = (token: string, at: number): number | undefined => {
    const [expiry, nonce, signature, ...rest] = token.split(".");
    if (expiry === undefined || nonce === undefined || signature === undefined || rest.length > 0) return;
    const expiresAt = Number.parseInt(expiry, 36);
    if (!Number.isSafeInteger(expiresAt) || expiresAt <= at || expiresAt > at + maxAgeMs) return;
    const given = Buffer.from(signature, "base64url");
    if (given.length !== 32) return;
    let valid = false;
    for (const key of keys) valid = timingSafeEqual(given, mac(key, `${expiry}.${nonce}`)) || valid;
    if (!valid || ended.has(digest(token))) return;
    return expiresAt;
  };
  const sweep = (at: number) => {
    for (const [key, expiresAt] of codes) if (expiresAt <= at) codes.delete(key);
    for (const [key, expiresAt] of ended) if (expiresAt <= at) ended.delete(key);
  };
  const open = (): BrowserSession => {
    const [key] = keys;
    if (key === undefined) throw new Error("No token to sign sessions with");
    const expiresAt = now() + maxAgeMs;
    const body = `${expiresAt.toString(36)}.${randomBytes(16).toString("base64url")}`;
    return { token: `${body}.${mac(key, body).toString("base64url")}`, expiresAt: new Date(expiresAt) };
  };

  return {
    issueCode() {
      const at = now();
      sweep(at);
      const code = randomBytes(32).toString("base64url");
      codes.set(digest(code), at + codeTtlMs);
      while (codes.size > maxCodes) {
        const oldest = codes.keys().next().value;
        if (oldest === undefined) break;
        codes.delete(oldest);
      }
      return { code, expiresAt: new Date(at + codeTtlMs) };
    },
    redeemCode(code) {
      const key = digest(code);
      const expiresAt = codes.get(key);
      // Spent by its first use, whatever comes of it.
      codes.delete(key);
      if (expiresAt === undefined || expiresAt <= now()) return undefined;
      return open();
    },
    open,
    check(token) {
      return verify(token, now()) !== undefined;
    },
    end(token) {
      const at = now();
      const expiresAt = verify(token, at);
      if (expiresAt === undefined) return false;
      sweep(at);
      ended.set(digest(token), expiresAt);
      return true;
    },
  };
}
