import type { Router } from "@koa/router";
import type Koa from "koa";
import { MethodNotAllowedError } from "./http-error.js";

/**
 * Mounts a @koa/router router with `allowedMethods({ throw: true })`, so that a wrong method reaches
 * the error boundary (405 with `Allow`, or 404 where no route matched) instead of koa-router's plain
 * text answer; a method the router has never heard of is a 405 too, not a 501 (a 5xx tells a sender
 * to retry what can never succeed).
 */
// biome-ignore lint/suspicious/noExplicitAny: any app's state and context, as Koa's own use() takes them.
export function mountRouter<S, C>(app: Koa<S, C>, router: Router<any, any>): void {
  app.use(router.routes());
  app.use(
    router.allowedMethods({
      throw: true,
      methodNotAllowed: () => new MethodNotAllowedError(),
      notImplemented: () => new MethodNotAllowedError(),
    }),
  );
}
