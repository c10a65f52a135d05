/**
 * What `claim` found:
 * - `claimed`: the id is new (or was released, or its claim expired); the caller must run the
 *   handler and then `complete` or `release` it.
 * - `completed`: already handled successfully; answer 2xx duplicate.
 * - `in-progress`: someone else holds an unexpired claim; wait and ask again.
 */
export type ClaimResult = "claimed" | "completed" | "in-progress";

/**
 * A store of webhook ids, shared by every receiver instance that must not run a handler twice.
 *
 * The once runner passes each attempt's own random `claimToken` to all three calls. A store keeps it
 * with the claim it grants, so that when a handler outlives the lease and another instance takes the
 * id over, the first instance's late `release` cannot delete the second one's claim. Stores written
 * before tokens existed (ignoring the argument) still work, without that protection.
 */
export interface DedupStore {
  /** Takes the id for this attempt, recording `claimToken` as the claim's owner. */
  claim(webhookId: string, claimToken?: string): Promise<ClaimResult>;
  /**
   * The handler succeeded: later claims answer `completed` until the TTL passes. Not conditional on
   * the token: whoever's attempt it was, the event was handled, so the id is remembered even if
   * another instance has taken the claim over meanwhile or the claim's record is gone.
   */
  complete(webhookId: string, claimToken?: string): Promise<void>;
  /**
   * The handler failed: forget the claim so a redelivery runs the handler again. With a token, only a
   * pending claim still owned by it is forgotten; without one, any pending claim of the id.
   */
  release(webhookId: string, claimToken?: string): Promise<void>;
  /** Frees what the store opened itself (never a database handle that was passed in). */
  close(): Promise<void>;
}

export interface DedupStoreOptions {
  /**
   * How long a completed id is remembered. Default 72 hours: longer than the sender's retry
   * schedule (about 28 hours), so no retry of a handled event ever runs the handler again.
   */
  ttlMs?: number;
  /**
   * How long a claim holds without `complete`/`release` before it is considered abandoned (its
   * instance crashed) and may be claimed again. Default 5 minutes.
   */
  leaseMs?: number;
  /** The clock in milliseconds, for tests. */
  now?: () => number;
}

export const DEFAULT_DEDUP_TTL_MS = 72 * 60 * 60 * 1000;
export const DEFAULT_DEDUP_LEASE_MS = 5 * 60 * 1000;
