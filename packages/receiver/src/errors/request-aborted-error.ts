import { WebhookError } from "../webhook-error.js";

/**
 * The client went away before its body was complete. Its fault, not ours: a 4xx, so it is not
 * counted or logged as a receiver failure (the client will not read the answer anyway).
 */
export class RequestAbortedError extends WebhookError {
  override readonly name = "RequestAbortedError";

  constructor(cause?: unknown) {
    super(400, "ERR_REQUEST_ABORTED", "Request body ended before it was complete", {
      headers: { Connection: "close" },
      cause,
    });
  }
}
