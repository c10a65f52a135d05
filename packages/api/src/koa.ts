import type { Middleware } from "koa";
import { setMountPoint, stripPrefix } from "./adapters/mount-prefix.js";
import type { WebhookApi } from "./create-webhook-api.js";

/**
 * The API as Koa middleware, under `prefix` (default: the root): `app.use(webhookApiMiddleware(api,
 * "/webhooks"))`. A request outside the prefix goes on to `next`; one inside is the API's, answered by
 * it whole (so mount it before any body parser that would read the API's bodies).
 */
export function webhookApiMiddleware(api: WebhookApi, prefix = ""): Middleware {
  if (prefix !== "" && !/^(\/[^/?#]+)+$/.test(prefix))
    throw new TypeError(`The prefix must look like "/webhooks" (no trailing slash): "${prefix}"`);
  const handle = api.koa.callback();
  return async (ctx, next) => {
    const path = stripPrefix(ctx.url, prefix);
    if (path === undefined) return next();
    ctx.respond = false;
    ctx.req.url = path;
    setMountPoint(ctx.req, { prefix });
    await handle(ctx.req, ctx.res);
  };
}
