import { describe, expect, it } from "vitest";
import { createHandshakeThrottle, HANDSHAKE_LIMITS } from "./create-handshake-throttle.js";

describe("createHandshakeThrottle", () => {
  const limits = { perEndpoint: { count: 2, windowMs: 10_000 }, perOwner: { count: 3, windowMs: 10_000 } };

  it("holds at most count in any sliding window, the one at the window's edge counted out", () => {
    let now = 0;
    const throttle = createHandshakeThrottle(limits, () => now);
    expect(throttle.take(1, "a")).toStrictEqual({ allowed: true });
    now = 4_000;
    expect(throttle.take(1, "a")).toStrictEqual({ allowed: true });
    now = 9_999;
    expect(throttle.take(1, "a")).toStrictEqual({ allowed: false, limit: "endpoint", retryAfterSeconds: 1 });
    now = 10_000;
    expect(throttle.take(1, "a")).toStrictEqual({ allowed: true });
    // Now 4 000 and 10 000 are in: the next room is at 14 000.
    now = 10_500;
    expect(throttle.take(1, "a")).toStrictEqual({ allowed: false, limit: "endpoint", retryAfterSeconds: 4 });
  });

  it("counts an owner's endpoints together, and counts nothing for a refused take", () => {
    const now = 0;
    const throttle = createHandshakeThrottle(limits, () => now);
    expect(throttle.take(1, "a").allowed).toBe(true);
    expect(throttle.take(1, "a").allowed).toBe(true);
    // Refused by the endpoint's limit: the owner's count stays at two.
    expect(throttle.take(1, "a")).toMatchObject({ allowed: false, limit: "endpoint" });
    expect(throttle.take(2, "a").allowed).toBe(true);
    expect(throttle.take(3, "a")).toStrictEqual({ allowed: false, limit: "owner", retryAfterSeconds: 10 });
    // Refused by the owner's limit: endpoint 3 has used nothing, so another owner's endpoint 3 may go.
    expect(throttle.take(3, "b").allowed).toBe(true);
    expect(throttle.take(3, "b").allowed).toBe(true);
  });

  it("defaults to 3 a minute per endpoint and 20 a minute per owner", () => {
    expect(HANDSHAKE_LIMITS).toStrictEqual({
      perEndpoint: { count: 3, windowMs: 60_000 },
      perOwner: { count: 20, windowMs: 60_000 },
    });
    const throttle = createHandshakeThrottle(undefined, () => 0);
    for (let i = 0; i < 3; i++) expect(throttle.take(1, "a").allowed).toBe(true);
    expect(throttle.take(1, "a")).toMatchObject({ allowed: false, retryAfterSeconds: 60 });
  });

  it.each([
    [{ ...limits, perEndpoint: { count: 0, windowMs: 1 } }, "perEndpoint.count must be a positive integer"],
    [{ ...limits, perOwner: { count: 1.5, windowMs: 1 } }, "perOwner.count must be a positive integer"],
    [{ ...limits, perOwner: { count: 1, windowMs: 0 } }, "perOwner.windowMs must be a positive integer"],
  ])("refuses limits it cannot keep (%j)", (bad, message) => {
    expect(() => createHandshakeThrottle(bad)).toThrow(message);
  });
});
