import { createHmac } from "node:crypto";
import { parseWebhookSecret } from "./webhook-secret.js";

export interface SignWebhookInput {
  /** The `webhook-id`. */
  id: string;
  /** Unix time in whole seconds. */
  timestamp: number;
  /** The exact bytes sent as the request body. */
  body: string | Buffer;
  /** One or more `whsec_` secrets (several during rotation): one signature each. */
  secrets: readonly string[] | readonly Buffer[];
}

/** The base64 HMAC-SHA256 of `id.timestamp.body` under one key (Standard Webhooks v1). */
export function computeSignature(key: Buffer, id: string, timestamp: number, body: string | Buffer): string {
  return createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest("base64");
}

/** The `webhook-signature` header value: `v1,<sig>` per secret, space-separated. */
export function signWebhook(input: SignWebhookInput): string {
  return input.secrets
    .map((secret) => {
      const key = typeof secret === "string" ? parseWebhookSecret(secret) : secret;
      return `v1,${computeSignature(key, input.id, input.timestamp, input.body)}`;
    })
    .join(" ");
}
