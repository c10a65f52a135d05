import type { AttemptOutcome } from "./outbox.js";

/** One finished attempt, as the worker logs it (`"msg":"delivery attempt"`) and reports it. */
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
  /** When the next attempt is due (outcome `retrying`). */
  nextAttemptAt?: string;
}
