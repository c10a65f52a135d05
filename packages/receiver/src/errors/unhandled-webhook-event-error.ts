import { WebhookError } from "../webhook-error.js";

/**
 * A webhook of the receiver's document that it has no handler for. 501 Not Implemented, a server
 * error: the sender retries (every non-2xx is retried by default, and no usual final answer lists a
 * 5xx), so a delivery sent before the handler is deployed is not lost; unsubscribe the endpoint from
 * the type to stop them.
 */
export class UnhandledWebhookEventError extends WebhookError {
  override readonly name = "UnhandledWebhookEventError";

  constructor(eventType: string) {
    super(501, "ERR_UNHANDLED_EVENT_TYPE", `No handler for the webhook event type ${eventType}`);
  }
}
