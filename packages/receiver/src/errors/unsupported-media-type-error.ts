import { WebhookError } from "../webhook-error.js";

/** A body that is not declared as `application/json`. */
export class UnsupportedMediaTypeError extends WebhookError {
  override readonly name = "UnsupportedMediaTypeError";

  constructor() {
    super(415, "ERR_UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json");
  }
}
