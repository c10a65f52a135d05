import { WebhookError } from "../webhook-error.js";

/** The RFC 6750 challenge sent with every token problem. */
export const BEARER_CHALLENGE = 'Bearer realm="plant-webhook"';

/** No `Authorization: Bearer <token>` header (or another scheme). RFC 6750 asks for a challenge. */
export class MissingTokenError extends WebhookError {
  override readonly name = "MissingTokenError";

  constructor() {
    super(401, "ERR_MISSING_TOKEN", "Missing or invalid bearer token", {
      headers: { "WWW-Authenticate": BEARER_CHALLENGE },
    });
  }
}
