import { WebhookError } from "../webhook-error.js";
import { BEARER_CHALLENGE } from "./missing-token-error.js";

/** A bearer token that matches none of the accepted tokens. Same message as a missing one: no hints. */
export class InvalidTokenError extends WebhookError {
  override readonly name = "InvalidTokenError";

  constructor() {
    super(401, "ERR_INVALID_TOKEN", "Missing or invalid bearer token", {
      headers: { "WWW-Authenticate": `${BEARER_CHALLENGE}, error="invalid_token"` },
    });
  }
}
