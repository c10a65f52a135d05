import type { AttemptOutcome } from "./outbox.js";

/** One finished attempt, as the worker logs it (`"msg":"delivery attempt"`) and reports it: what the outbox decided. */
export interface AttemptEvent {
  deliveryId: number;
  webhookId: string;
  /** The queued message (`EnqueueResult.messageId`) this delivery sends. */
  messageId: number;
  endpointId: number;
  /** 1-based over the delivery's life. */
  attempt: number;
  status: number | null;
  error: string | null;
  durationMs: number;
  outcome: AttemptOutcome;
  /** When the delivery was queued (ISO time): the start of its end-to-end latency. */
  queuedAt: string;
  /** When the next attempt is due (outcome `retrying`), on the store's clock. */
  nextAttemptAt?: string;
  /**
   * False when the attempt could not be recorded (the store was unreachable until the lease's end): the
   * delivery is attempted again once its lease runs out, and `nextAttemptAt` is then.
   */
  recorded?: false;
}
