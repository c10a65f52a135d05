/** Thrown at construction time for unusable options (no tokens, a malformed secret, ...). */
export class InvalidReceiverOptionsError extends Error {
  override readonly name = "InvalidReceiverOptionsError";
  readonly code = "ERR_INVALID_RECEIVER_OPTIONS";
}
