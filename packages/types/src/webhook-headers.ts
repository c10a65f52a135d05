import { z } from "zod";
import { MAX_SIGNATURE_HEADER_LENGTH, MAX_WEBHOOK_ID_LENGTH } from "./limits.js";

export const WEBHOOK_ID_HEADER = "webhook-id";
export const WEBHOOK_TIMESTAMP_HEADER = "webhook-timestamp";
export const WEBHOOK_SIGNATURE_HEADER = "webhook-signature";
/**
 * The event type of a delivery (`newPlant`), sent beside the Standard Webhooks headers when the message
 * has one. Not covered by the signature: a receiver checks the body against that type's schema, and
 * de-duplicates by `webhook-id`, as for every delivery.
 */
export const WEBHOOK_EVENT_TYPE_HEADER = "webhook-event-type";

/** Printable ASCII without spaces, 1 to 256 characters. */
export const WebhookIdSchema = z
  .string()
  .min(1)
  .max(MAX_WEBHOOK_ID_LENGTH)
  .regex(/^[\x21-\x7e]+$/);

/** Unix seconds as decimal digits; 15 digits keep it a safe integer. */
export const WebhookTimestampSchema = z.string().regex(/^[0-9]{1,15}$/);

/** Space-separated `v1,<base64>` signatures; receivers ignore other version prefixes. */
export const WebhookSignatureSchema = z.string().min(1).max(MAX_SIGNATURE_HEADER_LENGTH);

/** The three Standard Webhooks headers every delivery carries (lower-case, as Node presents them). */
export const WebhookHeadersSchema = z.object({
  [WEBHOOK_ID_HEADER]: WebhookIdSchema,
  [WEBHOOK_TIMESTAMP_HEADER]: WebhookTimestampSchema,
  [WEBHOOK_SIGNATURE_HEADER]: WebhookSignatureSchema,
});

export type WebhookHeaders = z.infer<typeof WebhookHeadersSchema>;
