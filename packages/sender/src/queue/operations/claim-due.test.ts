import { describe, expect, it } from "vitest";
import { claimPlan } from "./claim-due.js";

describe("claimPlan", () => {
  const request = { workerId: "w1", limit: 16, leaseMs: 30_000 };

  it("reads at most `limit` rows of an endpoint: more could never be taken", () => {
    expect(claimPlan({ ...request, perEndpointLimit: 50 }).perEndpoint).toBe(16);
    expect(claimPlan({ ...request, perEndpointLimit: 2 }).perEndpoint).toBe(2);
    expect(claimPlan(request).perEndpoint).toBe(16);
  });

  it("fills the defaults and adds what the transaction leaves alone", () => {
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
