import { WebhookError } from "../webhook-error.js";

/** No `v1` signature in the header matches any accepted secret over the raw body. */
export class InvalidSignatureError extends WebhookError {
  override readonly name = "InvalidSignatureError";

  constructor() {
    super(401, "ERR_INVALID_SIGNATURE", "No matching webhook signature");
  }
}
