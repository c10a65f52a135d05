import { randomUUID } from "node:crypto";

/** A fresh `webhook-id`: one per plant event, shared by every endpoint and every attempt. */
export function newWebhookId(): string {
  return `msg_${randomUUID()}`;
}
