import { describe, expect, it } from "vitest";
import { createBrowserSessions } from "./create-browser-sessions.js";

function clock(start = 1_000_000) {
  const state = { at: start };
  return { now: () => state.at, advance: (ms: number) => (state.at += ms) };
}

const TOKEN = "the-long-lived-token-0123";

describe("createBrowserSessions", () => {
  it("exchanges a code once for a session, which then lets its holder in", () => {
    const sessions = createBrowserSessions({ tokens: [TOKEN] });
    const { code } = sessions.issueCode();
    expect(code).toMatch(/^[\w-]{43}$/);
    const session = sessions.redeemCode(code);
    expect(session?.token).toMatch(/^[0-9a-z]+\.[\w-]{22}\.[\w-]{43}$/);
    expect(session?.token).not.toContain(TOKEN);
    expect(sessions.redeemCode(code)).toBeUndefined();
    expect(sessions.check(session?.token ?? "")).toBe(true);
    expect(sessions.check(code)).toBe(false);
    expect(sessions.check("not-a-session")).toBe(false);
  });

  it("refuses an expired code", () => {
    const time = clock();
    const sessions = createBrowserSessions({ tokens: [TOKEN], codeTtlMs: 1000, now: time.now });
    const late = sessions.issueCode();
    expect(late.expiresAt.getTime()).toBe(time.now() + 1000);
    time.advance(1000);
    expect(sessions.redeemCode(late.code)).toBeUndefined();
  });

  it("checks a session on any instance signing for the same token (a restart, another process), not for another", () => {
    const session = createBrowserSessions({ tokens: [TOKEN] }).open();
    expect(createBrowserSessions({ tokens: [TOKEN] }).check(session.token)).toBe(true);
    // During a rotation every token verifies; once the old one is gone, its sessions end.
    expect(createBrowserSessions({ tokens: ["a-new-token-0123456", TOKEN] }).check(session.token)).toBe(true);
    expect(createBrowserSessions({ tokens: ["a-new-token-0123456"] }).check(session.token)).toBe(false);
    expect(createBrowserSessions({ tokens: [] }).check(session.token)).toBe(false);
  });

  it("refuses a session whose expiry, nonce or MAC was changed", () => {
    const sessions = createBrowserSessions({ tokens: [TOKEN] });
    const [expiry = "", nonce = "", mac = ""] = sessions.open().token.split(".");
    const later = (Number.parseInt(expiry, 36) + 1).toString(36);
    for (const forged of [
      `${later}.${nonce}.${mac}`,
      `${expiry}.${nonce.slice(1)}A.${mac}`,
      `${expiry}.${nonce}.${mac.slice(1)}A`,
      `${expiry}.${nonce}.${mac}.x`,
      `${expiry}.${nonce}`,
      `${expiry}.${nonce}.${mac.slice(0, 20)}`,
    ])
      expect(sessions.check(forged), forged).toBe(false);
  });

  it("ends a session at its maximum age, and one ended on purpose", () => {
    const time = clock();
    const sessions = createBrowserSessions({ tokens: [TOKEN], maxAgeMs: 5000, now: time.now });
    const short = sessions.open();
    const ended = sessions.open();
    expect(short.expiresAt.getTime()).toBe(time.now() + 5000);
    expect(sessions.end(ended.token)).toBe(true);
    expect(sessions.end(ended.token)).toBe(false);
    expect(sessions.check(ended.token)).toBe(false);
    time.advance(4999);
    expect(sessions.check(short.token)).toBe(true);
    time.advance(1);
    expect(sessions.check(short.token)).toBe(false);
  });

  it("keeps at most maxCodes unused codes, dropping the oldest, and opens no session without a token", () => {
    const sessions = createBrowserSessions({ tokens: [TOKEN], maxCodes: 1 });
    const older = sessions.issueCode();
    const newer = sessions.issueCode();
    expect(sessions.redeemCode(older.code)).toBeUndefined();
    expect(sessions.redeemCode(newer.code)).toBeDefined();
    expect(() => createBrowserSessions({ tokens: [] }).open()).toThrow("No token");
  });
});
