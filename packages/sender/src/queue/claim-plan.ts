/** A claim as the dialect writes it: `ClaimRequest` with its defaults filled and what to leave alone. */
export interface ClaimPlan {
  workerId: string;
  limit: number;
  leaseMs: number;
  perEndpoint: number;
  excludeEndpointIds: readonly number[];
  /** Deliveries recorded in the same transaction: never claimed by it. */
  skipDeliveryIds: readonly number[];
  /**
   * Endpoints the same transaction writes: a rate-limited one is not claimed for (its bucket is not
   * touched), since PostgreSQL cannot update one row twice in one statement.
   */
  keepBucketsOf: readonly number[];
}
