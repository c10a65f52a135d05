import { Router, type RouterInstance } from "@koa/router";
import type { ReceiverOptions } from "./create-delivery-handler.js";
import { createKoaDeliveryHandler } from "./create-koa-delivery-handler.js";
import type { WebhookReceiver } from "./create-webhook-receiver.js";
import { resolveReceiver } from "./resolve-receiver.js";

export type { PlantWebhookOutcome, ReceiverOptions } from "./create-delivery-handler.js";

/**
 * A `@koa/router` router answering the New Plant webhook (given its options), or every webhook of a
 * catalog (given a `createWebhookReceiver` receiver), for apps that compose routers (prefixes,
 * nested routers, `allowedMethods`). Mount it before any body parser: it reads the raw bytes
 * itself, because the signature covers exactly those bytes. `createPlantWebhookMiddleware` runs the
 * same steps without the router's dispatch.
 */
export function createPlantWebhookRouter(
  receiverOrOptions: WebhookReceiver | ReceiverOptions,
): RouterInstance {
  const { receiver } = resolveReceiver(receiverOrOptions, undefined);
  const handle = createKoaDeliveryHandler(receiver);
  const router = new Router();
  // One layer for every method per webhook: the 405 answer is the handler's, so the router matches
  // one route per request instead of two (`post` then `all`).
  for (const route of receiver.routes) router.all(route.path, (ctx) => handle(ctx, route));
  return router;
}
