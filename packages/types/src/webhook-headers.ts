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

/**
 * The same three headers under Svix's names: what a receiver written with the `svix` library reads
 * (`svix-id`, `svix-timestamp`, `svix-signature`). The signature is the Standard Webhooks one, byte
 * for byte; only the names differ. An endpoint asks for them with `signatureHeaders: "svix"`.
 */
export const SVIX_ID_HEADER = "svix-id";
export const SVIX_TIMESTAMP_HEADER = "svix-timestamp";
export const SVIX_SIGNATURE_HEADER = "svix-signature";

/** Which names an endpoint's signature headers go under: `standard` (`webhook-*`, the default) or `svix` (`svix-*`). */
export const SIGNATURE_HEADER_STYLES = ["standard", "svix"] as const;
export type SignatureHeaderStyle = (typeof SIGNATURE_HEADER_STYLES)[number];

/** The id, timestamp and signature headers' names in each style. */
export const SIGNATURE_HEADER_NAMES = {
  standard: {
    id: WEBHOOK_ID_HEADER,
    timestamp: WEBHOOK_TIMESTAMP_HEADER,
    signature: WEBHOOK_SIGNATURE_HEADER,
  },
  svix: { id: SVIX_ID_HEADER, timestamp: SVIX_TIMESTAMP_HEADER, signature: SVIX_SIGNATURE_HEADER },
} as const satisfies Record<SignatureHeaderStyle, { id: string; timestamp: string; signature: string }>;
