import type Koa from "koa";
import type { Middleware } from "koa";
import { koaAppOf } from "./adapters/koa-app.js";
import { setMountPoint, stripPrefix } from "./adapters/mount-prefix.js";
import type { WebhookApi } from "./create-webhook-api.js";

export { principalOf, scopeOf } from "./access/principal-of.js";
export type { Route, RouteTable } from "./access/route-table.js";

/**
 * The Koa app underneath an API: to serve it whole (`webhookApiKoa(api).listen(port)`) or hand it to
 * something that takes a Koa app. To mount it under a path of your own Koa app, use
 * `webhookApiMiddleware`.
 */
export function webhookApiKoa(api: WebhookApi): Koa {
  return koaAppOf(api);
}

/**
 * The API as Koa middleware, under `prefix` (default: the root): `app.use(webhookApiMiddleware(api,
 * "/webhooks"))`. A request outside the prefix goes on to `next`; one inside is the API's, answered by
 * it whole (so mount it before any body parser that would read the API's bodies).
 */
export function webhookApiMiddleware(api: WebhookApi, prefix = ""): Middleware {
  if (prefix !== "" && !/^(\/[^/?#]+)+$/.test(prefix))
    throw new TypeError(`The prefix must look like "/webhooks" (no trailing slash): "${prefix}"`);
  const handle = koaAppOf(api).callback();
  return async (ctx, next) => {
    const path = stripPrefix(ctx.url, prefix);
    if (path === undefined) return next();
    ctx.respond = false;
    ctx.req.url = path;
    setMountPoint(ctx.req, { prefix });
    await handle(ctx.req, ctx.res);
  };
}
