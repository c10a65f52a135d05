/**
 * Thrown at once (not as a rejected promise) when an asynchronous outbox call is made while the caller's
 * better-sqlite3 transaction is open on the shared handle: a `db.transaction(...)` function cannot await,
 * so the call would resolve after the transaction ended, or write into it and be rolled back after it
 * had answered. Inside the transaction, `enqueueSync` is the one to call.
 */
export class OutboxInTransactionError extends Error {
  readonly code = "ERR_OUTBOX_IN_TRANSACTION";
  override readonly name = "OutboxInTransactionError";
}
