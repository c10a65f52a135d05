/** Thrown by `enqueue` for a message that could never be delivered as given; nothing was queued. */
export class InvalidMessageError extends Error {
  readonly code = "ERR_INVALID_MESSAGE";
  override readonly name = "InvalidMessageError";
}
