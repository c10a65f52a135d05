import type { AttemptResult } from "./attempt-result.js";

/** What became of one attempt, as stored: the delivery delivered, to be retried, failed, or its endpoint disabled. */
export type AttemptOutcome = "delivered" | "retrying" | "failed" | "disabled";

export interface RetryDecisionInput {
  result: Pick<AttemptResult, "status" | "retryAfterMs">;
  /** Attempts in the current round, this one included. */
  roundAttempts: number;
}

/**
 * What the policy makes of one attempt, with no clock: a retry is a delay, which the outbox adds to its
 * own time when it records the attempt.
 */
export interface RetryDecision {
  outcome: AttemptOutcome;
  /** How long until the next attempt (outcome `retrying`). */
  retryInMs?: number;
  endpointSucceeded: boolean;
  /** 410 Gone. (Failing for too long is decided by the outbox when it records the attempt.) */
  disableEndpoint?: string;
}

export interface RetryPolicy {
  readonly schedule: readonly number[];
  readonly maxRetryAfterMs: number;
  readonly disableAfterMs: number;
  /** How long a run of failures lasts before it is alerted (`RetryPolicyOptions.alertAfterMs`). */
  readonly alertAfterMs: number;
  /** Answers that fail a delivery at once (`RetryPolicyOptions.finalStatuses`). */
  readonly finalStatuses: readonly number[];
  /**
   * Failures further apart than this are not one continuous run: twice the longest wait the policy can
   * put between two attempts (the last jittered delay, or `maxRetryAfterMs`). A longer silence means
   * the endpoint had no work, so an old failure followed by an idle week does not count as a week failing.
   */
  readonly failureGapMs?: number;
  /** The delay before attempt `attempt` (1-based) of a round, jittered. */
  delayBefore(attempt: number): number;
  decide(input: RetryDecisionInput): RetryDecision;
}
