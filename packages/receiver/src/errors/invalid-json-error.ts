import { WebhookError } from "../webhook-error.js";

/** A body that is not UTF-8 JSON. */
export class InvalidJsonError extends WebhookError {
  override readonly name = "InvalidJsonError";

  constructor(cause?: unknown) {
    super(400, "ERR_INVALID_JSON", "Request body is not valid JSON", { cause });
  }
}
