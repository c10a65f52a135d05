import { WebhookError } from "../webhook-error.js";

/** `onNewPlant` threw; the cause is logged, never sent. The sender retries with the same id. */
export class HandlerFailedError extends WebhookError {
  override readonly name = "HandlerFailedError";

  constructor(cause: unknown) {
    super(500, "ERR_HANDLER_FAILED", "Internal error", { cause });
  }
}
