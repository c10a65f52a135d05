import { z } from "zod";
import { WebhookIdSchema, WebhookSignatureSchema, WebhookTimestampSchema } from "./webhook-headers.js";

/**
 * The headers a push of a pulled event carries (lower-case, bar `Authorization`): the three Standard
 * Webhooks headers, and any other as text (`webhook-event-type`, `content-type`).
 */
export const PulledEventHeadersSchema = z
  .object({
    "webhook-id": WebhookIdSchema,
    "webhook-timestamp": WebhookTimestampSchema,
    "webhook-signature": WebhookSignatureSchema,
  })
  .catchall(z.string());

/**
 * One event of the store's events API (the pull side, issue 40): `headers` signed over `body`, the exact
 * text a push sends; a receiver verifies it as a push and de-duplicates both by `webhookId`.
 */
export const PulledEventSchema = z.looseObject({
  webhookId: WebhookIdSchema,
  eventType: z.string().nullable(),
  timestamp: z.string(),
  headers: PulledEventHeadersSchema,
  body: z.string(),
});

export type PulledEvent = z.infer<typeof PulledEventSchema>;

/** A page of an endpoint's events, oldest first; `next` is the opaque cursor after it (null: empty page). */
export const EventPageSchema = z.looseObject({
  events: z.array(PulledEventSchema),
  next: z.string().nullable(),
});

export type EventPage = z.infer<typeof EventPageSchema>;

/** The events API's 410: the cursor outlived retention; `oldestCursor` is the oldest one still served. */
export const EventsExpiredSchema = z.looseObject({
  error: z.literal(410),
  message: z.string(),
  oldestCursor: z.string(),
});

export type EventsExpired = z.infer<typeof EventsExpiredSchema>;
