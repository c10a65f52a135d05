// `@plant-store/receiver/koa`: the Koa router and middleware, the only entry that loads `koa` and
// `@koa/router` (optional peers), so an Express, Hono or fetch project installs neither.

export type { PlantWebhookOutcome, ReceiverOptions } from "./create-delivery-handler.js";
export {
  createPlantWebhookMiddleware,
  type PlantWebhookMiddleware,
} from "./create-plant-webhook-middleware.js";
export { createPlantWebhookRouter } from "./create-plant-webhook-router.js";
export type { WebhookReceiver } from "./create-webhook-receiver.js";
