import type { ClaimedDelivery, ClaimRequest } from "../../outbox.js";
import type { ClaimPlan } from "../claim-plan.js";
import type { Operation } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import { toClaimed } from "../rows.js";

/** A claim request with its defaults, never taking `skipDeliveryIds` nor work for `skipEndpointIds`. */
export function claimPlan(
  request: ClaimRequest,
  skipDeliveryIds: readonly number[] = [],
  skipEndpointIds: readonly number[] = [],
  keepBucketsOf: readonly number[] = [],
): ClaimPlan {
  return {
    workerId: request.workerId,
    limit: request.limit,
    leaseMs: request.leaseMs,
    // Never more than `limit`: the claim reads that many of an endpoint's due rows, and more could never
    // be taken (a worker allowing 50 per endpoint claimed 16 at a time and read 50 rows each time).
    perEndpoint: Math.min(request.perEndpointLimit ?? request.limit, request.limit),
    perOwner: request.perOwnerLimit ?? request.limit,
    excludeOwners: (request.excludeOwners ?? []).map((owner) => owner ?? 0),
    excludeEndpointIds: [...(request.excludeEndpointIds ?? []), ...skipEndpointIds],
    skipDeliveryIds,
    keepBucketsOf,
  };
}

/**
 * Leases at most `limit` due deliveries, owners taking turns (`ownersTakeTurns`), at most `perEndpointLimit` per
 * endpoint (one in the slow lane, a rate-limited one's schedule) and `perOwnerLimit` per owner, none of
 * the excluded endpoints' or owners', with their payload and endpoint. Only endpoints with pending work
 * are looked at, and only the rows of the endpoints it takes work for are written.
 */
export function* claimDue(ctx: QueueContext, request: ClaimRequest): Operation<ClaimedDelivery[]> {
  if (request.limit <= 0) return [];
  const { claimed } = yield* ctx.store.writeAndClaim(ctx, [], claimPlan(request));
  return toClaimed(claimed, ctx.codec.open);
}
