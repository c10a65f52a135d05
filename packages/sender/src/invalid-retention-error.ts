/** Thrown by `createWorker` when `retention` holds a value it cannot sweep by (zero, negative, not a number). */
export class InvalidRetentionError extends RangeError {
  readonly code = "ERR_INVALID_RETENTION";
  override readonly name = "InvalidRetentionError";
}
