import type { Context, Next } from "koa";
import type { ReceiverOptions } from "./create-delivery-handler.js";
import { createKoaDeliveryHandler } from "./create-koa-delivery-handler.js";
import { createRouteMatcher } from "./create-route-matcher.js";
import type { WebhookReceiver } from "./create-webhook-receiver.js";
import { requestPath } from "./request-path.js";
import { resolveReceiver } from "./resolve-receiver.js";

/** A Koa middleware. */
export type PlantWebhookMiddleware = (ctx: Context, next: Next) => Promise<void>;

/**
 * The New Plant webhook (given its options), or every webhook of a catalog (given a
 * `createWebhookReceiver` receiver), as a plain Koa middleware:
 * `app.use(createPlantWebhookMiddleware(options))`. It answers every method on its paths (405 for
 * all but POST), matched as @koa/router matches them (any case, with or without a trailing slash),
 * and passes any other path to `next()`. The same steps as `createPlantWebhookRouter`, without a
 * router's dispatch on every request (the cheapest way to mount it in Koa). Mount it before any body
 * parser: it reads the raw bytes itself, because the signature covers exactly those bytes.
 */
export function createPlantWebhookMiddleware(
  receiverOrOptions: WebhookReceiver | ReceiverOptions,
): PlantWebhookMiddleware {
  const { receiver } = resolveReceiver(receiverOrOptions, undefined);
  const handle = createKoaDeliveryHandler(receiver);
  const route = createRouteMatcher(receiver.routes);
  // The request's own target, which is what `ctx.path` parses (Koa's setters of `ctx.path` and
  // `ctx.url` rewrite it, as koa-mount does), without building a parsed URL on every request.
  return (ctx, next) => {
    const matched = route(requestPath(ctx.req.url));
    return matched === undefined ? next() : handle(ctx, matched);
  };
}
