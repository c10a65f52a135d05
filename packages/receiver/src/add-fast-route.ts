import type { RouterInstance } from "@koa/router";
import type { Context, Middleware, Next } from "koa";

/** Characters that make a @koa/router path a pattern rather than one literal path. */
const PATTERN = /[:*?+(){}\\]/;

interface RouterContext {
  matched?: unknown[];
  router?: unknown;
  routeMatched?: boolean;
  captures?: string[];
  params?: Record<string, string>;
  routerPath?: string;
  routerName?: string | undefined;
  _matchedRoute?: string;
  newRouterPath?: string;
  request: { params?: Record<string, string> };
}

/**
 * Makes `router.routes()` (and `router.middleware()`) answer `method path` by calling `handle`
 * directly, leaving on `ctx` what @koa/router's dispatch would have left (`matched`, `params`,
 * `routerPath`, `_matchedRoute`, ...). @koa/router tests every layer's regular expression and
 * composes a new middleware chain for every request; for the one hot route that is pure overhead.
 * Anything else, and every request once the router has been changed (more routes, `use`, a prefix,
 * a host), goes through the router's own dispatch, unchanged.
 */
export function addFastRoute(
  router: RouterInstance,
  method: string,
  path: string,
  handle: (ctx: Context) => Promise<void>,
): void {
  if (PATTERN.test(path)) return;
  const layers = [...router.stack];
  const original = router.middleware.bind(router);
  const intact = () => {
    const { stack, opts } = router;
    if (stack.length !== layers.length || opts.host || opts.routerPath) return false;
    for (let i = 0; i < layers.length; i++) {
      const layer = layers[i];
      if (stack[i] !== layer || layer?.path !== path) return false;
    }
    return true;
  };

  const middleware = (): Middleware => {
    const dispatch = original() as Middleware;
    const fast = (ctx: Context, next: Next) => {
      const state = ctx as unknown as RouterContext;
      if (ctx.method !== method || ctx.path !== path || state.newRouterPath || !intact()) {
        return dispatch(ctx, next);
      }
      if (state.matched) state.matched.push(...layers);
      else state.matched = [...layers];
      state.router = router;
      state.routeMatched = true;
      state.captures = [];
      const params = { ...state.params };
      state.request.params = params;
      state.params = params;
      state.routerPath = path;
      state.routerName = undefined;
      state._matchedRoute = path;
      return handle(ctx);
    };
    return Object.assign(fast, { router });
  };
  Object.assign(router, { middleware, routes: middleware });
}
