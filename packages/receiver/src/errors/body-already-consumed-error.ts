import { WebhookError } from "../webhook-error.js";

/**
 * The request's body was read before the receiver got it (a body parser such as `express.json()`
 * or `koa-bodyparser` ran first). The signature covers the exact bytes sent, which are gone, so no
 * delivery can be verified: a setup error, answered 500 so the sender retries once it is fixed.
 */
export class BodyAlreadyConsumedError extends WebhookError {
  override readonly name = "BodyAlreadyConsumedError";

  constructor() {
    super(
      500,
      "ERR_BODY_ALREADY_CONSUMED",
      "The request body was already read by a body parser mounted before the webhook receiver; mount the receiver before any body parser",
    );
  }
}
