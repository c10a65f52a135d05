import { WebhookError } from "../webhook-error.js";

/**
 * The body did not arrive within the body-read timeout. A client trickling bytes would otherwise
 * hold a connection (and a slot in the sender's concurrency) forever; `Connection: close` drops it.
 */
export class RequestTimeoutError extends WebhookError {
  override readonly name = "RequestTimeoutError";

  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(408, "ERR_REQUEST_TIMEOUT", `Request body was not received within ${timeoutMs} ms`, {
      headers: { Connection: "close" },
    });
    this.timeoutMs = timeoutMs;
  }
}
