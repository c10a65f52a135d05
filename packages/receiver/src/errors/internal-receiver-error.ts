import { WebhookError } from "../webhook-error.js";

/** Anything unexpected (e.g. the de-duplication store is down). Details are logged, not sent. */
export class InternalReceiverError extends WebhookError {
  override readonly name = "InternalReceiverError";

  constructor(cause: unknown) {
    super(500, "ERR_INTERNAL", "Internal error", { cause });
  }
}
