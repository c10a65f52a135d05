import { WebhookError } from "../webhook-error.js";

/**
 * Another copy of this webhook id is still being handled (or its handler just failed) after our bounded
 * wait. A non-2xx answer makes the sender retry later, which is what we want.
 */
export class DeliveryInProgressError extends WebhookError {
  override readonly name = "DeliveryInProgressError";

  constructor() {
    super(
      500,
      "ERR_DELIVERY_IN_PROGRESS",
      "This webhook id is being processed by another request; retry later",
    );
  }
}
