import { describe, expect, it } from "vitest";
import { createBrowserSessions } from "./create-browser-sessions.js";

function clock(start = 1_000_000) {
  const state = { at: start };
  return { now: () => state.at, advance: (ms: number) => (state.at += ms) };
}

describe("createBrowserSessions", () => {
  it("exchanges a code once for a session, which then lets its holder in", () => {
    const sessions = createBrowserSessions();
    const { code } = sessions.issueCode();
    const session = sessions.redeemCode(code);
    expect(session?.token).toMatch(/^[\w-]{43}$/);
    expect(session?.token).not.toBe(code);
    expect(sessions.redeemCode(code)).toBeUndefined();
    expect(sessions.check(session?.token ?? "")).toBe(true);
    expect(sessions.check(code)).toBe(false);
    expect(sessions.check("not-a-session")).toBe(false);
  });

  it("refuses an expired code, and a code spent on a failed try is spent", () => {
    const time = clock();
    const sessions = createBrowserSessions({ codeTtlMs: 1000, now: time.now });
    const late = sessions.issueCode();
    expect(late.expiresAt.getTime()).toBe(time.now() + 1000);
    time.advance(1000);
    expect(sessions.redeemCode(late.code)).toBeUndefined();
  });

  it("ends a session left idle, one too old however used, and one ended on purpose", () => {
    const time = clock();
    const sessions = createBrowserSessions({ idleTimeoutMs: 1000, maxAgeMs: 5000, now: time.now });
    const idle = sessions.open();
    const busy = sessions.open();
    const ended = sessions.open();
    expect(sessions.end(ended.token)).toBe(true);
    expect(sessions.end(ended.token)).toBe(false);
    expect(sessions.check(ended.token)).toBe(false);
    for (let step = 0; step < 4; step++) {
      time.advance(900);
      expect(sessions.check(busy.token)).toBe(true);
    }
    expect(sessions.check(idle.token)).toBe(false);
    time.advance(1500);
    expect(busy.expiresAt.getTime()).toBe(1_000_000 + 5000);
    expect(sessions.check(busy.token)).toBe(false);
  });

  it("keeps at most maxSessions, ending the least recently used, and at most maxCodes", () => {
    const sessions = createBrowserSessions({ maxSessions: 2, maxCodes: 1 });
    const first = sessions.open();
    const second = sessions.open();
    expect(sessions.check(first.token)).toBe(true);
    sessions.open();
    expect(sessions.size).toBe(2);
    expect(sessions.check(second.token)).toBe(false);
    expect(sessions.check(first.token)).toBe(true);
    const older = sessions.issueCode();
    const newer = sessions.issueCode();
    expect(sessions.redeemCode(older.code)).toBeUndefined();
    expect(sessions.redeemCode(newer.code)).toBeDefined();
  });
});
