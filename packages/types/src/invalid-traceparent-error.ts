/** Thrown by `formatTraceparent` for ids or flags that would make a header every receiver ignores. */
export class InvalidTraceparentError extends Error {
  readonly code = "ERR_INVALID_TRACEPARENT";
  override readonly name = "InvalidTraceparentError";
}
