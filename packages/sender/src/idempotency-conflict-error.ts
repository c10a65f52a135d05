/**
 * Thrown by `enqueue` when an idempotency key already names a message with another payload: a retry
 * of the same request must carry the same payload, so this is another request reusing the key (an
 * HTTP API answers it with 409). Nothing was queued.
 */
export class IdempotencyConflictError extends Error {
  readonly code = "ERR_IDEMPOTENCY_CONFLICT";
  override readonly name = "IdempotencyConflictError";
}
