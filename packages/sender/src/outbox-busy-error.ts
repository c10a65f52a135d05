/**
 * Thrown when the outbox cannot write now because its SQLite connection is inside a transaction of the
 * caller's (the handle is shared): the worker retries, and nothing it records can be rolled back with
 * the caller's work.
 */
export class OutboxBusyError extends Error {
  readonly code = "ERR_OUTBOX_BUSY";
  override readonly name = "OutboxBusyError";
}
