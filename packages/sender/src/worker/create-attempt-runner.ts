import type { OperationalEvent } from "@plant-store/types";
import type { AttemptEvent } from "../attempt-event.js";
import type { AttemptResult } from "../attempt-result.js";
import type { AttemptReport, ClaimedDelivery, RecordedAttempt } from "../outbox.js";
import type { SenderLogger } from "../sender-logger.js";

export interface AttemptRunnerOptions {
  workerId: string;
  /** Makes the HTTP attempt; never throws (an error is the attempt's result). */
  attempt: (delivery: ClaimedDelivery) => Promise<AttemptResult>;
  /**
   * Records the attempt (the claim loop's `record`) before `deadline` (the worker's clock) and answers
   * what the outbox decided; undefined when the delivery no longer exists.
   */
  record: (report: AttemptReport, deadline: number) => Promise<RecordedAttempt | undefined>;
  /**
   * Gives a claimed delivery back unattempted (the outbox's `release`): one that waited for a slot until
   * too little of its lease was left for an attempt.
   */
  giveBack?: (delivery: ClaimedDelivery) => Promise<void>;
  /**
   * The lease an attempt needs left when it starts (its timeout plus the record's margin); with less, the
   * delivery is given back instead, so a lease always covers the attempts in flight. Default: no check.
   */
  minLeaseLeftMs?: number;
  /** Wakes the worker at this time (the worker's clock, Unix ms) for a retry (the retry timer's `wakeAt`). */
  wakeAt: (at: number) => void;
  /** When the delivery's lease ends on the worker's clock: it was claimed then, for `leaseMs`. */
  leaseEnd: (delivery: ClaimedDelivery) => number;
  now: () => number;
  logger?: SenderLogger | undefined;
  onAttempt?: ((event: AttemptEvent) => void) | undefined;
  onAlert?: ((alert: OperationalEvent) => void) | undefined;
}

/**
 * One delivery's turn: attempts it, frees its slot, has it recorded (the outbox decides what follows: delivered, retry
 * when, failed, endpoint disabled), then logs and reports what was decided, as stored. A record that
 * fails for good is logged, not thrown: the lease runs out and the delivery is attempted again.
 */
export function createAttemptRunner(
  options: AttemptRunnerOptions,
): (delivery: ClaimedDelivery, free?: () => void) => Promise<void> {
  const { workerId, logger, now } = options;
  const { minLeaseLeftMs } = options;
  return async function run(delivery, free) {
    if (minLeaseLeftMs !== undefined && options.leaseEnd(delivery) - now() < minLeaseLeftMs) {
      // It waited for a slot for most of its lease: an attempt now could outlive the lease and be sent
      // twice at once. Back to the queue, due at once.
      logger?.warn({ deliveryId: delivery.id }, "lease too short for an attempt, given back");
      await options.giveBack?.(delivery);
      return;
    }
    const result = await options.attempt(delivery);
    // The request is over: its slot may start the next attempt while this one is recorded.
    free?.();
    let recorded: RecordedAttempt | undefined;
    let recordError: unknown;
    try {
      recorded = await options.record(
        { deliveryId: delivery.id, workerId, leaseUntil: delivery.leaseUntil, result },
        options.leaseEnd(delivery),
      );
      if (!recorded) {
        // Its endpoint was removed while the attempt was made: nothing is left to record it against.
        logger?.info({ deliveryId: delivery.id }, "delivery removed during its attempt");
        return;
      }
      if (!recorded.held)
        logger?.warn({ deliveryId: delivery.id }, "lease lost before the attempt was recorded");
      // A delay, not the stored time: the store's clock (PostgreSQL's) need not agree with this one.
      else if (recorded.retryInMs !== undefined) options.wakeAt(now() + recorded.retryInMs);
    } catch (error) {
      // The lease runs out and the delivery is attempted again: at least once, never lost.
      logger?.error({ deliveryId: delivery.id, err: error }, "could not record attempt");
      recordError = error;
    }
    // Built only for someone to hear it: its dates are formatted at every attempt otherwise.
    if (logger || options.onAttempt) {
      const event: AttemptEvent = {
        deliveryId: delivery.id,
        webhookId: delivery.webhookId,
        messageId: delivery.messageId,
        endpointId: delivery.endpointId,
        attempt: recorded?.attempt ?? delivery.attemptCount + 1,
        status: result.status,
        error: result.error,
        durationMs: result.durationMs,
        // An attempt whose record failed is made again after its lease.
        outcome: recorded?.outcome ?? "retrying",
        queuedAt: delivery.createdAt.toISOString(),
      };
      if (recorded?.nextAttemptAt) event.nextAttemptAt = recorded.nextAttemptAt.toISOString();
      if (recordError !== undefined) {
        event.recorded = false;
        event.nextAttemptAt = new Date(options.leaseEnd(delivery)).toISOString();
      }
      // The worker id ties a log line to the lease owner and attempt rows in the database.
      logger?.info({ ...event, workerId }, "delivery attempt");
      options.onAttempt?.(event);
    }
    if (recorded?.disabledEndpoint)
      logger?.warn(
        { endpointId: delivery.endpointId, reason: recorded.disabledEndpoint },
        "endpoint disabled",
      );
    for (const alert of recorded?.alerts ?? []) {
      logger?.warn({ alert }, alert.type);
      options.onAlert?.(alert);
    }
  };
}
