import { randomUUID } from "node:crypto";

/** A fresh `webhook-id` (`msg_<uuid>`): one per message, shared by every endpoint and every attempt. */
export function newWebhookId(): string {
  return `msg_${randomUUID()}`;
}
