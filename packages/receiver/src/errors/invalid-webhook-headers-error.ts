import { WebhookError } from "../webhook-error.js";

/** A missing or malformed `webhook-id`, `webhook-timestamp` or `webhook-signature` header (names only, never values). */
export class InvalidWebhookHeadersError extends WebhookError {
  override readonly name = "InvalidWebhookHeadersError";

  readonly header: string;
  constructor(header: string, problem: "missing" | "malformed") {
    super(
      401,
      "ERR_INVALID_WEBHOOK_HEADERS",
      `${problem === "missing" ? "Missing" : "Malformed"} ${header} header`,
    );
    this.header = header;
  }
}
