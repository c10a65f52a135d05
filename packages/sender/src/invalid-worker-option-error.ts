/** Thrown by `createWorker` when a count it was given (`claimAhead`) is not a whole number, 0 or more. */
export class InvalidWorkerOptionError extends RangeError {
  readonly code = "ERR_INVALID_WORKER_OPTION";
  override readonly name = "InvalidWorkerOptionError";
}
