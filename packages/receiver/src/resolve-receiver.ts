import { createDeliveryHandler, type ReceiverOptions } from "./create-delivery-handler.js";
import { isWebhookReceiver, type WebhookReceiver } from "./create-webhook-receiver.js";

/**
 * What an adapter was given: a catalog receiver (`createWebhookReceiver`) as it is, or the New Plant
 * options made into their receiver; the adapter's own options come from the one or the other.
 */
export function resolveReceiver<AdapterOptions extends object>(
  receiverOrOptions: WebhookReceiver | (ReceiverOptions & AdapterOptions),
  adapterOptions: AdapterOptions | undefined,
): { receiver: WebhookReceiver; adapter: Partial<AdapterOptions> } {
  return isWebhookReceiver(receiverOrOptions)
    ? { receiver: receiverOrOptions, adapter: adapterOptions ?? {} }
    : { receiver: createDeliveryHandler(receiverOrOptions), adapter: receiverOrOptions };
}
