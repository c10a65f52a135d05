/** The idempotency key was first used with another request body: answering as if it matched would hide a bug. */
export class IdempotencyConflictError extends Error {
  readonly code = "ERR_IDEMPOTENCY_CONFLICT";
  /** The admin API's answer. */
  readonly status = 409;
  override readonly name = "IdempotencyConflictError";
}
