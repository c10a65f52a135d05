import { describe, expect, it } from "vitest";
import { createAuthThrottle } from "./create-auth-throttle.js";

function clock(start = 1_000_000) {
  const state = { at: start };
  return { now: () => state.at, advance: (ms: number) => (state.at += ms) };
}

describe("createAuthThrottle", () => {
  it("lets a client fail its burst, then makes it wait one refill per attempt", () => {
    const time = clock();
    const throttle = createAuthThrottle({
      credential: "admin token",
      burst: 3,
      refillMs: 1000,
      now: time.now,
    });
    for (let i = 0; i < 3; i++) {
      expect(throttle.retryAfterMs("10.0.0.1")).toBe(0);
      throttle.failed("10.0.0.1");
    }
    expect(throttle.retryAfterMs("10.0.0.1")).toBe(1000);
    time.advance(400);
    expect(throttle.retryAfterMs("10.0.0.1")).toBe(600);
    // Another client is not slowed by the first.
    expect(throttle.retryAfterMs("10.0.0.2")).toBe(0);
    time.advance(600);
    expect(throttle.retryAfterMs("10.0.0.1")).toBe(0);
    throttle.failed("10.0.0.1");
    expect(throttle.retryAfterMs("10.0.0.1")).toBe(1000);
    // A full burst again after burst × refill without failures.
    time.advance(3000);
    for (let i = 0; i < 3; i++) {
      expect(throttle.retryAfterMs("10.0.0.1")).toBe(0);
      throttle.failed("10.0.0.1");
    }
    expect(throttle.retryAfterMs("10.0.0.1")).toBeGreaterThan(0);
  });

  it("forgets the longest untouched client beyond maxClients, so memory stays bounded", () => {
    const time = clock();
    const throttle = createAuthThrottle({ credential: "t", burst: 1, maxClients: 2, now: time.now });
    for (const client of ["a", "b", "c"]) throttle.failed(client);
    expect(throttle.retryAfterMs("a")).toBe(0);
    expect(throttle.retryAfterMs("b")).toBeGreaterThan(0);
    expect(throttle.retryAfterMs("c")).toBeGreaterThan(0);
  });

  it("counts every refusal and logs them sampled", () => {
    const counted: string[] = [];
    const lines: Array<Record<string, unknown>> = [];
    const throttle = createAuthThrottle({
      credential: "read token",
      burst: 2,
      count: (outcome) => counted.push(outcome),
      logger: { warn: (object) => lines.push({ ...object }) },
    });
    for (let i = 0; i < 100; i++) throttle.failed("10.0.0.1");
    throttle.throttled("10.0.0.1");
    expect(counted.filter((outcome) => outcome === "wrong")).toHaveLength(100);
    expect(counted.filter((outcome) => outcome === "throttled")).toHaveLength(1);
    expect(lines).toEqual([
      { client: "10.0.0.1", credential: "read token", sampled: true },
      { client: "10.0.0.1", credential: "read token", sampled: true },
    ]);
    throttle.flush();
    expect(lines[2]).toMatchObject({ occurrences: 99, clients: 1 });
  });

  it("refuses settings that would never let anyone in or never slow anyone", () => {
    expect(() => createAuthThrottle({ credential: "t", burst: 0 })).toThrow(RangeError);
    expect(() => createAuthThrottle({ credential: "t", refillMs: 0 })).toThrow(RangeError);
  });
});
