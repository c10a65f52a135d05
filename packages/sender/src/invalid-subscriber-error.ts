/** Thrown before anything is written when a subscriber's name cannot be stored as given. */
export class InvalidSubscriberError extends Error {
  readonly code = "ERR_INVALID_SUBSCRIBER";
  override readonly name = "InvalidSubscriberError";
}
