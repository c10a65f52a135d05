import Router, { type RouterMiddleware } from "@koa/router";
import { mountRouter } from "@plant-store/app-shell/http";
import type Koa from "koa";
import type { Middleware } from "koa";
import { notFound } from "../errors.js";
import { principalOf } from "./principal-of.js";
import type { Access, RouteTable } from "./route-table.js";

/**
 * Mounts the routes of `tables` on `app`, each behind the access rule its row names, as middleware on
 * the route: `guard` (the bearer guard: 401, or 429 for a client guessing) for all but public routes,
 * then a subscriber's credential on an operator's route is answered 404 like an unknown path.
 *
 * A request no route takes (an unknown path, or a known one with a wrong method) is held to the
 * operator's rule before the router answers 404 or 405 with its Allow list: without a credential it is
 * a 401 like any other, so the API's paths and methods cannot be mapped without one, and a subscriber
 * gets 404 whatever the method.
 */
export function mountRouteTables(app: Koa, tables: readonly RouteTable[], guard: Middleware): void {
  const operatorOnly: Middleware = (ctx, next) => {
    if (principalOf(ctx).kind === "subscriber") throw notFound("Route");
    return next();
  };
  const rules: Record<Access, RouterMiddleware[]> = {
    public: [],
    operator: [guard, operatorOnly],
    "subscriber-or-operator": [guard],
  };
  const router = new Router();
  for (const route of tables.flat())
    router.register(route.path, [route.method], [...rules[route.access], route.handler]);
  mountRouter(app, router);
  // Reached only by a request no route took (a route's handler ends the chain). It runs inside the
  // router's allowedMethods, mounted just before, which looks at the answer only after this: a 401 or
  // 429 set here is left alone, a 404 thrown here goes out as it is, and only a request let through as
  // the operator's gets the router's 405 (with Allow), OPTIONS answer or 404.
  app.use(async (ctx, next) => {
    await guard(ctx, () => operatorOnly(ctx, next));
  });
}
