import { createHash, randomBytes } from "node:crypto";

export interface BrowserSessionsOptions {
  /** How long a sign-in code can be exchanged, once. Default 10 minutes. */
  codeTtlMs?: number;
  /** A session unused this long ends. Default 1 hour (an open page polls every second or two). */
  idleTimeoutMs?: number;
  /** A session ends this long after it began, however much it is used. Default 24 hours. */
  maxAgeMs?: number;
  /** Sessions open at most; beyond, the least recently used ends. Default 1,000. */
  maxSessions?: number;
  /** Unused codes kept at most; beyond, the oldest is dropped. Default 100. */
  maxCodes?: number;
  now?: () => number;
}

/** A browser's session: its bearer token and when it ends at the latest. */
export interface BrowserSession {
  token: string;
  expiresAt: Date;
}

/**
 * Short-lived credentials for a page, so a long-lived token never travels in a URL and never stays in
 * a browser. A sign-in code (for a link) is exchanged once, by POST, for a session token; so is the
 * long-lived token typed into the page's form. The page keeps the session token in its tab's
 * sessionStorage and sends it as `Authorization: Bearer`.
 */
export interface BrowserSessions {
  /** A new single-use code. */
  issueCode(): { code: string; expiresAt: Date };
  /** Spends `code` on a new session; undefined when it is unknown, used or expired. */
  redeemCode(code: string): BrowserSession | undefined;
  /** A new session (the caller has checked the long-lived token). */
  open(): BrowserSession;
  /** Whether `token` is a live session; a use keeps it from idling out. */
  check(token: string): boolean;
  /** Ends the session `token`; false when there was none. */
  end(token: string): boolean;
  /** Open sessions (expired ones may still be counted until next looked at). */
  readonly size: number;
}

interface Session {
  startedAt: number;
  usedAt: number;
}

// 256 random bits: never guessed, so compared by a lookup of their digest, not one by one.
const newSecret = () => randomBytes(32).toString("base64url");
const digest = (value: string) => createHash("sha256").update(value).digest("base64url");

/**
 * Sessions and codes in this process's memory, keyed by a SHA-256 digest of their value: a lookup's
 * timing depends on the digest, never on the secret, and a heap dump shows no usable value. A restart
 * ends every session (the page then asks to sign in again). Several `serve` processes each have their
 * own: a link works on the process that issued it.
 */
export function createBrowserSessions(options: BrowserSessionsOptions = {}): BrowserSessions {
  const codeTtlMs = options.codeTtlMs ?? 10 * 60_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 60 * 60_000;
  const maxAgeMs = options.maxAgeMs ?? 24 * 60 * 60_000;
  const maxSessions = options.maxSessions ?? 1000;
  const maxCodes = options.maxCodes ?? 100;
  const now = options.now ?? Date.now;
  const codes = new Map<string, number>();
  const sessions = new Map<string, Session>();

  const live = (session: Session, at: number) =>
    at - session.usedAt < idleTimeoutMs && at - session.startedAt < maxAgeMs;
  const sweep = (at: number) => {
    for (const [key, expiresAt] of codes) if (expiresAt <= at) codes.delete(key);
    for (const [key, session] of sessions) if (!live(session, at)) sessions.delete(key);
  };
  const open = (): BrowserSession => {
    const at = now();
    sweep(at);
    const token = newSecret();
    sessions.set(digest(token), { startedAt: at, usedAt: at });
    // Least recently used first (check() moves a session to the end).
    while (sessions.size > maxSessions) {
      const oldest = sessions.keys().next().value;
      if (oldest === undefined) break;
      sessions.delete(oldest);
    }
    return { token, expiresAt: new Date(at + maxAgeMs) };
  };

  return {
    issueCode() {
      const at = now();
      sweep(at);
      const code = newSecret();
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
      const key = digest(token);
      const session = sessions.get(key);
      if (session === undefined) return false;
      const at = now();
      sessions.delete(key);
      if (!live(session, at)) return false;
      session.usedAt = at;
      sessions.set(key, session);
      return true;
    },
    end(token) {
      return sessions.delete(digest(token));
    },
    get size() {
      return sessions.size;
    },
  };
}
