import { WebhookError } from "../webhook-error.js";

/** A method other than POST on the webhook path. */
export class MethodNotAllowedError extends WebhookError {
  override readonly name = "MethodNotAllowedError";

  constructor(method: string) {
    super(
      405,
      "ERR_METHOD_NOT_ALLOWED",
      `Method ${method.replace(/[^A-Za-z-]/g, "").slice(0, 20)} not allowed; use POST`,
      {
        headers: { Allow: "POST" },
      },
    );
  }
}
