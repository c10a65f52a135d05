/**
 * Thrown when an endpoint or a message names a subscriber that does not exist: checked before anything
 * is written, so an endpoint is never left owned by nobody and a message never addressed to nobody.
 */
export class SubscriberNotFoundError extends Error {
  readonly code = "ERR_SUBSCRIBER_NOT_FOUND";
  override readonly name = "SubscriberNotFoundError";
}
