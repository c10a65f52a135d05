import { WebhookError } from "../webhook-error.js";

/** A body over the size limit, by its Content-Length or while streaming it. */
export class PayloadTooLargeError extends WebhookError {
  override readonly name = "PayloadTooLargeError";

  readonly limit: number;
  constructor(limit: number, cause?: unknown) {
    super(413, "ERR_PAYLOAD_TOO_LARGE", `Request body is larger than ${limit} bytes`, {
      headers: { Connection: "close" },
      cause,
    });
    this.limit = limit;
  }
}
