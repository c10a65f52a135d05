import { describe, expect, it } from "vitest";
import {
  type ClaimableEndpoint,
  claimAllowance,
  rateFrom,
  SLOW_LANE_AFTER,
  writesOnClaim,
} from "./claim-allowance.js";

const endpoint = (more: Partial<ClaimableEndpoint> = {}): ClaimableEndpoint => ({
  timeouts: 0,
  slowUntil: null,
  rateLimit: null,
  rateNextAt: null,
  ...more,
});
const now = 1_000_000;

describe("claimAllowance", () => {
  it("allows perEndpoint to an endpoint with no limit and no run of timeouts", () => {
    expect(claimAllowance(endpoint({ timeouts: SLOW_LANE_AFTER - 1 }), now, 2)).toBe(2);
    expect(writesOnClaim(endpoint({ timeouts: SLOW_LANE_AFTER - 1 }))).toBe(false);
  });

  it("allows one in the slow lane, and none while its pause lasts", () => {
    expect(claimAllowance(endpoint({ timeouts: SLOW_LANE_AFTER }), now, 2)).toBe(1);
    expect(claimAllowance(endpoint({ timeouts: SLOW_LANE_AFTER }), now, 0)).toBe(0);
    expect(claimAllowance(endpoint({ timeouts: 9, slowUntil: now + 1 }), now, 2)).toBe(0);
    expect(claimAllowance(endpoint({ timeouts: 9, slowUntil: now }), now, 2)).toBe(1);
    expect(writesOnClaim(endpoint({ timeouts: SLOW_LANE_AFTER }))).toBe(true);
  });

  it("allows a rate-limited endpoint the starts its schedule has left within a second, 1.2 s / limit apart", () => {
    expect(claimAllowance(endpoint({ rateLimit: 10 }), now, 100)).toBe(9);
    expect(claimAllowance(endpoint({ rateLimit: 12 }), now, 100)).toBe(10);
    expect(claimAllowance(endpoint({ rateLimit: 10 }), now, 3)).toBe(3);
    expect(claimAllowance(endpoint({ rateLimit: 10, rateNextAt: now - 60_000 }), now, 100)).toBe(9);
    // The schedule runs 1,080 ms ahead: nothing within the second; from 999 ms ahead, one.
    expect(claimAllowance(endpoint({ rateLimit: 10, rateNextAt: now + 1_080 }), now, 100)).toBe(0);
    expect(claimAllowance(endpoint({ rateLimit: 10, rateNextAt: now + 1_000 }), now, 100)).toBe(0);
    expect(claimAllowance(endpoint({ rateLimit: 10, rateNextAt: now + 999 }), now, 100)).toBe(1);
    expect(claimAllowance(endpoint({ rateLimit: 10, rateNextAt: now + 880 }), now, 100)).toBe(1);
    expect(claimAllowance(endpoint({ rateLimit: 10, rateNextAt: now + 879 }), now, 100)).toBe(2);
    expect(claimAllowance(endpoint({ rateLimit: 1 }), now, 100)).toBe(1);
    expect(writesOnClaim(endpoint({ rateLimit: 1 }))).toBe(true);
  });

  it("takes the smaller of the slow lane's and the rate's", () => {
    expect(claimAllowance(endpoint({ rateLimit: 10, timeouts: SLOW_LANE_AFTER }), now, 5)).toBe(1);
    expect(
      claimAllowance(endpoint({ rateLimit: 10, rateNextAt: now + 5_000, timeouts: SLOW_LANE_AFTER }), now, 5),
    ).toBe(0);
  });

  it("starts a schedule now, or where it runs ahead", () => {
    expect(rateFrom(endpoint(), now)).toBe(now);
    expect(rateFrom(endpoint({ rateNextAt: now - 5 }), now)).toBe(now);
    expect(rateFrom(endpoint({ rateNextAt: now + 5 }), now)).toBe(now + 5);
  });
});
