import { describe, expect, it } from "vitest";
import type { QueueContext } from "../queue-context.js";
import { claimDue, claimPlan } from "./claim-due.js";

describe("claimPlan", () => {
  const request = { workerId: "w1", limit: 16, leaseMs: 30_000 };

  it("reads at most `limit` rows of an endpoint: more could never be taken", () => {
    expect(claimPlan({ ...request, perEndpointLimit: 50 }).perEndpoint).toBe(16);
    expect(claimPlan({ ...request, perEndpointLimit: 2 }).perEndpoint).toBe(2);
    expect(claimPlan(request).perEndpoint).toBe(16);
  });

  it("fills the defaults: nothing excluded, skipped or kept", () => {
    expect(claimPlan(request)).toEqual({
      workerId: "w1",
      limit: 16,
      leaseMs: 30_000,
      perEndpoint: 16,
      perOwner: 16,
      excludeOwners: [],
      excludeEndpointIds: [],
      skipDeliveryIds: [],
      keepBucketsOf: [],
    });
  });

  it("adds what the transaction leaves alone", () => {
    expect(
      claimPlan({ ...request, excludeOwners: [null, 4], excludeEndpointIds: [7] }, [1], [8], [9]),
    ).toEqual({
      workerId: "w1",
      limit: 16,
      leaseMs: 30_000,
      perEndpoint: 16,
      perOwner: 16,
      excludeOwners: [0, 4],
      excludeEndpointIds: [7, 8],
      skipDeliveryIds: [1],
      keepBucketsOf: [9],
    });
  });
});

describe("claimDue", () => {
  it("asks the store for nothing when no delivery is wanted", () => {
    const ctx = {
      store: {
        writeAndClaim() {
          throw new Error("the store was asked");
        },
      },
    } as unknown as QueueContext;
    for (const limit of [0, -1]) {
      const step = claimDue(ctx, { workerId: "w1", limit, leaseMs: 30_000 }).next();
      expect(step).toEqual({ done: true, value: [] });
    }
  });
});
