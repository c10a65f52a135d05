import { IdempotencyConflictError as QueueIdempotencyConflictError } from "@plant-store/sender";

/**
 * The idempotency key was first used with another request body: answering as if it matched would hide a
 * bug. The queue's own error (same code), with the admin API's answer.
 */
export class IdempotencyConflictError extends QueueIdempotencyConflictError {
  readonly status = 409;
}
