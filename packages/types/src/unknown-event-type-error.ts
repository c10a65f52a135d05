/** Thrown for an event type that is not a webhook of the catalog's document. */
export class UnknownEventTypeError extends Error {
  readonly code = "ERR_UNKNOWN_EVENT_TYPE";
  override readonly name = "UnknownEventTypeError";
}
