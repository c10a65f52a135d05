// The Node entry: everything of the runtime-neutral `./fetch` entry, plus the Koa router, the
// node:http/Express middleware, and the synchronous verifier.

export {
  createNodeMiddleware,
  type NodeMiddleware,
  type NodeMiddlewareOptions,
} from "./create-node-middleware.js";
export {
  createPlantWebhookMiddleware,
  type PlantWebhookMiddleware,
} from "./create-plant-webhook-middleware.js";
export { createPlantWebhookRouter } from "./create-plant-webhook-router.js";
export { createVerifier, type Verifier, type VerifyFunction, type VerifyResult } from "./create-verifier.js";
export * from "./fetch.js";
