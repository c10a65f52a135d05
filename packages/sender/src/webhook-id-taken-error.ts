/**
 * Thrown by `enqueue` when the caller's `webhookId` already belongs to another message: receivers
 * de-duplicate by that id, so a second message under it would be dropped by them. Nothing was queued.
 */
export class WebhookIdTakenError extends Error {
  readonly code = "ERR_WEBHOOK_ID_TAKEN";
  override readonly name = "WebhookIdTakenError";
}
