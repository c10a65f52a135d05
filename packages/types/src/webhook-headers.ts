import { z } from "zod";
import { MAX_SIGNATURE_HEADER_LENGTH, MAX_WEBHOOK_ID_LENGTH } from "./limits.js";

export const WEBHOOK_ID_HEADER = "webhook-id";
export const WEBHOOK_TIMESTAMP_HEADER = "webhook-timestamp";
export const WEBHOOK_SIGNATURE_HEADER = "webhook-signature";

export const WebhookIdSchema = z
  .string()
  .min(1)
  .max(MAX_WEBHOOK_ID_LENGTH)
  .regex(/^[\x21-\x7e]+$/);

export const WebhookTimestampSchema = z.string().regex(/^[0-9]{1,15}$/);

export const WebhookSignatureSchema = z.string().min(1).max(MAX_SIGNATURE_HEADER_LENGTH);

/** The three Standard Webhooks headers every delivery carries (lower-case, as Node presents them). */
export const WebhookHeadersSchema = z.object({
  [WEBHOOK_ID_HEADER]: WebhookIdSchema,
  [WEBHOOK_TIMESTAMP_HEADER]: WebhookTimestampSchema,
  [WEBHOOK_SIGNATURE_HEADER]: WebhookSignatureSchema,
});

export type WebhookHeaders = z.infer<typeof WebhookHeadersSchema>;
