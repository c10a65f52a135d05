import { Router, type RouterInstance } from "@koa/router";
import type { ReceiverOptions } from "./create-delivery-handler.js";
import { createKoaDeliveryHandler } from "./create-koa-delivery-handler.js";

export type { PlantWebhookOutcome, ReceiverOptions } from "./create-delivery-handler.js";

/**
 * A `@koa/router` router answering the New Plant webhook, for apps that compose routers (prefixes,
 * nested routers, `allowedMethods`). Mount it before any body parser: it reads the raw bytes
 * itself, because the signature covers exactly those bytes. `createPlantWebhookMiddleware` runs the
 * same steps without the router's dispatch.
 */
export function createPlantWebhookRouter(options: ReceiverOptions): RouterInstance {
  const { path, handle } = createKoaDeliveryHandler(options);
  const router = new Router();
  // One layer for every method: the 405 answer is the handler's, so the router matches one route
  // per request instead of two (`post` then `all`).
  router.all(path, handle);
  return router;
}
