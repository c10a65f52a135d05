import { type Delivery, NEW_PLANT_EVENT, type NewPlant, PLANT_STORE_WEBHOOKS } from "@plant-store/types";
import {
  createWebhookReceiver,
  type SharedReceiverOptions,
  type WebhookReceiver,
} from "./create-webhook-receiver.js";
import { InvalidReceiverOptionsError } from "./errors/invalid-receiver-options-error.js";

export type {
  DeliveryAnswer,
  DeliveryRequest,
  PlantWebhookOutcome,
} from "./create-webhook-receiver.js";
export { JSON_TYPE } from "./create-webhook-receiver.js";

/** The New Plant receiver's options, as every adapter takes them. */
export interface ReceiverOptions extends SharedReceiverOptions {
  /** Route path. Default `/plant/webhook`. */
  path?: string;
  /** Runs once per webhook id. Throwing answers 500, so the sender retries. */
  onNewPlant: (plant: NewPlant, delivery: Delivery) => void | Promise<void>;
}

/**
 * The contract's New Plant webhook: the catalog receiver over `PLANT_STORE_WEBHOOKS`, with
 * `onNewPlant` as its one handler and `path` as New Plant's path.
 */
export function createDeliveryHandler(options: ReceiverOptions): WebhookReceiver<typeof NEW_PLANT_EVENT> {
  const path = options.path ?? "/plant/webhook";
  if (typeof path !== "string" || !path.startsWith("/")) {
    throw new InvalidReceiverOptionsError("Invalid receiver options: path: must start with /");
  }
  const { onNewPlant } = options;
  if (typeof onNewPlant !== "function") {
    throw new InvalidReceiverOptionsError("Invalid receiver options: onNewPlant: must be a function");
  }
  return createWebhookReceiver({
    ...options,
    catalog: PLANT_STORE_WEBHOOKS,
    paths: { [NEW_PLANT_EVENT]: path },
    handlers: {
      // The delivery as `onNewPlant` has always had it: without the handler context's `eventType`.
      newPlant: (plant, { webhookId, timestamp, traceparent }) =>
        onNewPlant(plant, { webhookId, timestamp, traceparent }),
    },
  });
}
