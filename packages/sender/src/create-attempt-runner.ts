import type { AttemptEvent } from "./attempt-event.js";
import type { AttemptResult } from "./attempt-result.js";
import type { RetryPolicy } from "./create-retry-policy.js";
import type { ClaimedDelivery, RecordAttemptInput, RecordedAttempt } from "./outbox.js";
import type { SenderLogger } from "./sender-logger.js";

export interface AttemptRunnerOptions {
  workerId: string;
  policy: RetryPolicy;
  /** Makes the HTTP attempt; never throws (an error is the attempt's result). */
  attempt: (delivery: ClaimedDelivery) => Promise<AttemptResult>;
  /** Records the attempt (the record batcher's `recordWithRetry`); gets the delivery's endpoint id. */
  record: (input: RecordAttemptInput, endpointId: number) => Promise<RecordedAttempt>;
  /** Wakes the worker at this time (Unix ms) for a retry (the retry timer's `wakeAt`). */
  wakeAt: (at: number) => void;
  logger?: SenderLogger | undefined;
  onAttempt?: ((event: AttemptEvent) => void) | undefined;
}

/**
 * One delivery's turn: attempts it, lets the policy decide what follows, records that, then logs
 * and reports the attempt as stored. A record that fails for good is logged, not thrown: the lease
 * runs out and the delivery is attempted again.
 */
export function createAttemptRunner(
  options: AttemptRunnerOptions,
): (delivery: ClaimedDelivery) => Promise<void> {
  const { workerId, policy, logger } = options;
  return async function run(delivery) {
    const result = await options.attempt(delivery);
    const decision = policy.decide({ result, roundAttempts: delivery.roundAttempts + 1 });
    const decidedAt = Date.now();
    const event: AttemptEvent = {
      deliveryId: delivery.id,
      webhookId: delivery.webhookId,
      messageId: delivery.messageId,
      endpointId: delivery.endpointId,
      attempt: delivery.attemptCount + 1,
      status: result.status,
      error: result.error,
      durationMs: result.durationMs,
      outcome: decision.outcome,
      queuedAt: delivery.createdAt.toISOString(),
    };
    if (decision.nextAttemptAt) event.nextAttemptAt = decision.nextAttemptAt.toISOString();
    let disabledEndpoint: string | undefined;
    try {
      const recorded = await options.record(
        {
          deliveryId: delivery.id,
          workerId,
          leaseUntil: delivery.leaseUntil,
          attempt: {
            startedAt: result.startedAt,
            durationMs: result.durationMs,
            status: result.status,
            error: result.error,
            responseBody: result.responseBody,
          },
          outcome: decision.outcome,
          ...(decision.nextAttemptAt ? { nextAttemptAt: decision.nextAttemptAt } : {}),
          endpointSucceeded: decision.endpointSucceeded,
          ...(decision.disableEndpoint ? { disableEndpoint: decision.disableEndpoint } : {}),
          disableAfterMs: policy.disableAfterMs,
          failureGapMs: policy.failureGapMs ?? policy.disableAfterMs,
        },
        delivery.endpointId,
      );
      if (!recorded.held)
        logger?.warn({ deliveryId: delivery.id }, "lease lost before the attempt was recorded");
      // The store may have disabled the endpoint on this failure (failing for too long): report what it stored.
      if (recorded.outcome !== event.outcome) {
        event.outcome = recorded.outcome;
        delete event.nextAttemptAt;
      }
      disabledEndpoint = recorded.disabledEndpoint;
      // Counted from now, once recorded: a store that keeps its own clock (PostgreSQL) stored the
      // delay from its time of writing, later than the decision; waking at the decided instant
      // could find nothing due yet, and nothing would wake the worker again before the next poll.
      if (recorded.held && decision.nextAttemptAt && event.outcome === "retrying")
        options.wakeAt(Date.now() + Math.max(0, decision.nextAttemptAt.getTime() - decidedAt));
    } catch (error) {
      // The lease runs out and the delivery is attempted again: at least once, never lost.
      logger?.error({ deliveryId: delivery.id, err: error }, "could not record attempt");
    }
    // The worker id ties a log line to the lease owner and attempt rows in the database.
    logger?.info({ ...event, workerId }, "delivery attempt");
    if (disabledEndpoint) {
      logger?.warn({ endpointId: delivery.endpointId, reason: disabledEndpoint }, "endpoint disabled");
    }
    options.onAttempt?.(event);
  };
}
