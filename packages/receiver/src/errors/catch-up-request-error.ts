/**
 * The events API answered a catch-up's request with an error (or did not answer): the run stopped
 * without moving its cursor, and the catch-up tries again after its backoff. `status` is the HTTP
 * status (0 when no answer came: a network error or the request's timeout).
 */
export class CatchUpRequestError extends Error {
  override readonly name = "CatchUpRequestError";
  readonly code = "ERR_CATCH_UP_REQUEST";
  constructor(
    readonly status: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
