import { z } from "zod";
import { defineWebhookCatalog, type WebhookDefinition } from "./webhook-catalog.js";

/**
 * The outbox's own webhooks about its endpoints and deliveries (Svix's "operational webhooks"). They
 * are opt-in: an endpoint receives one only when its list names it or a prefix of it (`endpoint.*`);
 * an endpoint without a list (every type) never does, so no plant receiver is sent what it cannot parse.
 */
export const OPERATIONAL_EVENT_TYPES = [
  "endpoint.failing",
  "endpoint.disabled",
  "endpoint.recovered",
  "delivery.failed",
] as const;

export type OperationalEventType = (typeof OPERATIONAL_EVENT_TYPES)[number];

/** Whether an event type is one of the outbox's operational webhooks (reserved: callers cannot enqueue one). */
export const isOperationalEventType = (eventType: string): eventType is OperationalEventType =>
  (OPERATIONAL_EVENT_TYPES as readonly string[]).includes(eventType);

const isoTime = z.iso.datetime({ offset: true });

/** What every operational payload says of the endpoint it is about. */
const EndpointFields = {
  endpointId: z.int(),
  url: z.string(),
  /** The subscriber the endpoint belongs to; null for the operator's own. */
  subscriberId: z.int().nullable(),
  /** When it happened, on the store's clock. */
  at: isoTime,
};

export const EndpointFailingSchema = z.looseObject({
  type: z.literal("endpoint.failing"),
  ...EndpointFields,
  failingSince: isoTime,
  lastStatus: z.int().nullable(),
  lastError: z.string().nullable(),
});

export const EndpointDisabledSchema = z.looseObject({
  type: z.literal("endpoint.disabled"),
  ...EndpointFields,
  failingSince: isoTime.nullable(),
  reason: z.string(),
  lastStatus: z.int().nullable(),
});

export const EndpointRecoveredSchema = z.looseObject({
  type: z.literal("endpoint.recovered"),
  ...EndpointFields,
  /** When the run of failures it recovered from began. */
  failingSince: isoTime,
  lastStatus: z.int(),
});

export const DeliveryFailedSchema = z.looseObject({
  type: z.literal("delivery.failed"),
  ...EndpointFields,
  deliveryId: z.int(),
  messageId: z.int(),
  webhookId: z.string(),
  eventType: z.string().nullable(),
  attempts: z.int(),
  lastStatus: z.int().nullable(),
  lastError: z.string().nullable(),
});

export type EndpointFailing = z.infer<typeof EndpointFailingSchema>;
export type EndpointDisabled = z.infer<typeof EndpointDisabledSchema>;
export type EndpointRecovered = z.infer<typeof EndpointRecoveredSchema>;
export type DeliveryFailed = z.infer<typeof DeliveryFailedSchema>;
export type OperationalEvent = EndpointFailing | EndpointDisabled | EndpointRecovered | DeliveryFailed;

/** Event type → payload, for a typed catalog or receiver. */
export interface OperationalEvents extends Record<string, unknown> {
  "endpoint.failing": EndpointFailing;
  "endpoint.disabled": EndpointDisabled;
  "endpoint.recovered": EndpointRecovered;
  "delivery.failed": DeliveryFailed;
}

/** The four definitions, to add to a catalog of one's own (`defineWebhookCatalog([...mine, ...these])`). */
export const OPERATIONAL_WEBHOOK_DEFINITIONS: readonly WebhookDefinition[] = [
  {
    eventType: "endpoint.failing",
    path: "/operational/endpoint-failing",
    schema: EndpointFailingSchema,
    summary: "Endpoint failing",
  },
  {
    eventType: "endpoint.disabled",
    path: "/operational/endpoint-disabled",
    schema: EndpointDisabledSchema,
    summary: "Endpoint disabled",
  },
  {
    eventType: "endpoint.recovered",
    path: "/operational/endpoint-recovered",
    schema: EndpointRecoveredSchema,
    summary: "Endpoint recovered",
  },
  {
    eventType: "delivery.failed",
    path: "/operational/delivery-failed",
    schema: DeliveryFailedSchema,
    summary: "Delivery failed",
  },
];

export const OPERATIONAL_WEBHOOKS = defineWebhookCatalog<OperationalEvents>(OPERATIONAL_WEBHOOK_DEFINITIONS);
