/** Thrown for a key that is not `whsec_`, `whsk_` or `whpk_` followed by base64 of a usable length. */
export class InvalidWebhookSecretError extends Error {
  readonly code = "ERR_INVALID_WEBHOOK_SECRET";
  override readonly name = "InvalidWebhookSecretError";
}
