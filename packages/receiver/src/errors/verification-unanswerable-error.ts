import { WebhookError } from "../webhook-error.js";

/**
 * The store's verification request arrived (authenticated: its v1a signature passed) but the receiver
 * holds no `whsec_` secret, and the answer proves one: a `whpk_` public key proves nothing. 501 Not
 * Implemented: this receiver cannot pass the handshake until it is given the endpoint's `whsec_` secret.
 */
export class VerificationUnanswerableError extends WebhookError {
  override readonly name = "VerificationUnanswerableError";

  constructor() {
    super(
      501,
      "ERR_VERIFICATION_UNANSWERABLE",
      "This receiver holds no whsec_ secret, and the answer to webhook.verification proves one: configure the endpoint's whsec_ secret",
    );
  }
}
