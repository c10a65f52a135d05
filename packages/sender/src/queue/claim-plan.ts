/** A claim as the dialect writes it: `ClaimRequest` with its defaults filled and what to leave alone. */
export interface ClaimPlan {
  workerId: string;
  limit: number;
  leaseMs: number;
  perEndpoint: number;
  /** At most this many per owner (`COALESCE(e.subscriber_id, 0)`), owners taking turns. */
  perOwner: number;
  /** Owners to take nothing for: subscriber ids, 0 for the operator. */
  excludeOwners: readonly number[];
  excludeEndpointIds: readonly number[];
  /** Deliveries recorded in the same transaction: never claimed by it. */
  skipDeliveryIds: readonly number[];
  /**
   * Endpoints the same transaction writes: one whose claim writes its row (rate-limited, or in the slow
   * lane) is not claimed for, since PostgreSQL cannot update one row twice in one statement.
   */
  keepBucketsOf: readonly number[];
}
