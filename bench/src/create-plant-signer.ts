import { randomBytes } from "node:crypto";
import {
  createWebhookSigner,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from "@plant-store/types";

export interface SignedPlant {
  id: string;
  body: string;
  headers: Record<string, string>;
}

/**
 * Signs one New Plant delivery per call with a webhook id never used before (a per-signer random
 * prefix plus a counter), so receivers that de-duplicate do real work on every request.
 * The body is about 60 bytes, like the raw baseline.
 */
export function createPlantSigner(secret: string, token: string): () => SignedPlant {
  const sign = createWebhookSigner([secret]);
  const prefix = `msg_${randomBytes(6).toString("hex")}_`;
  const authorization = `Bearer ${token}`;
  let counter = 0;
  return () => {
    counter += 1;
    const id = `${prefix}${counter}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const body = `{"id":${counter},"name":"Monstera deliciosa","tag":"tropical"}`;
    return {
      id,
      body,
      headers: {
        authorization,
        "content-type": "application/json",
        [WEBHOOK_ID_HEADER]: id,
        [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
        [WEBHOOK_SIGNATURE_HEADER]: sign({ id, timestamp, body }),
      },
    };
  };
}
