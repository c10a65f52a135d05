import { z } from "zod";
import type { NewPlant } from "./new-plant.js";
import { parseTraceparent } from "./traceparent.js";
import { WebhookIdSchema } from "./webhook-headers.js";

/** What a receiver's handler learns about the delivery that carried a plant. */
export const DeliverySchema = z.object({
  /** The `webhook-id`: the same on every retry of one event. */
  webhookId: WebhookIdSchema,
  /** When the sender signed this attempt (`webhook-timestamp`). */
  timestamp: z.date(),
  /**
   * The request's W3C `traceparent` header when it held a valid one (a malformed one is dropped):
   * the sender's attempt, to continue its trace from the handler.
   */
  traceparent: z
    .string()
    .refine((value) => parseTraceparent(value) !== undefined, "must be a valid W3C traceparent")
    .optional(),
});

export type Delivery = z.infer<typeof DeliverySchema>;

/**
 * The event type of the one webhook this contract defines: its `operationId` in the document, as every
 * webhook's event type is (`createWebhookCatalog`).
 */
export const NEW_PLANT_EVENT = "newPlant" as const;

/** The contract's event types and their payloads: what `createWebhookCatalog(openapi)` holds, typed. */
export interface PlantStoreEvents extends Record<string, unknown> {
  newPlant: NewPlant;
}
