/** Thrown by `createRetryPolicy` for an option it cannot decide by. */
export class InvalidRetryPolicyError extends Error {
  readonly code = "ERR_INVALID_RETRY_POLICY";
  override readonly name = "InvalidRetryPolicyError";
}
