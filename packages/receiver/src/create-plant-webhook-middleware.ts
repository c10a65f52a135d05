import type { Context, Next } from "koa";
import type { ReceiverOptions } from "./create-delivery-handler.js";
import { createKoaDeliveryHandler } from "./create-koa-delivery-handler.js";
import { createPathMatcher } from "./create-path-matcher.js";
import { requestPath } from "./request-path.js";

/** A Koa middleware. */
export type PlantWebhookMiddleware = (ctx: Context, next: Next) => Promise<void>;

/**
 * The New Plant webhook as a plain Koa middleware: `app.use(createPlantWebhookMiddleware(options))`.
 * It answers every method on its path (405 for all but POST), matched as @koa/router matches it
 * (any case, with or without a trailing slash), and passes any other path to `next()`.
 * The same steps as `createPlantWebhookRouter`, without a router's dispatch on every request (the
 * cheapest way to mount it in Koa). Mount it before any body parser: it reads the raw bytes itself,
 * because the signature covers exactly those bytes.
 */
export function createPlantWebhookMiddleware(options: ReceiverOptions): PlantWebhookMiddleware {
  const { path, handle } = createKoaDeliveryHandler(options);
  const matches = createPathMatcher(path);
  // The request's own target, which is what `ctx.path` parses (Koa's setters of `ctx.path` and
  // `ctx.url` rewrite it, as koa-mount does), without building a parsed URL on every request.
  return (ctx, next) => (matches(requestPath(ctx.req.url)) ? handle(ctx) : next());
}
