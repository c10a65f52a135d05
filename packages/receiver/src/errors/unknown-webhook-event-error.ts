import { WebhookError } from "../webhook-error.js";

/**
 * The `webhook-event-type` header names no webhook of the receiver's document (or was sent twice).
 * 400, like a payload its schema refuses: the delivery is not one this receiver's contract knows, so
 * a sender told to end a delivery at a 400 (the sender's final answers) stops retrying it.
 */
export class UnknownWebhookEventError extends WebhookError {
  override readonly name = "UnknownWebhookEventError";

  constructor(detail: string) {
    super(400, "ERR_UNKNOWN_EVENT_TYPE", `Unknown webhook event type: ${detail}`);
  }
}
