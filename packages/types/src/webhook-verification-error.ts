/** Why a delivery failed verification; the three verdicts are those of `@plant-store/spec`'s vectors. */
export type WebhookVerificationFailure =
  | "invalid-header"
  | "no-matching-signature"
  | "timestamp-too-old"
  | "timestamp-too-new";

/** Thrown (or rejected) by a webhook verifier. The message never contains a key or a signature. */
export class WebhookVerificationError extends Error {
  readonly code = "ERR_WEBHOOK_VERIFICATION";
  override readonly name = "WebhookVerificationError";
  readonly reason: WebhookVerificationFailure;
  /** For `invalid-header`: which header. */
  readonly header: string | undefined;

  constructor(reason: WebhookVerificationFailure, message: string, header?: string) {
    super(message);
    this.reason = reason;
    this.header = header;
  }
}
