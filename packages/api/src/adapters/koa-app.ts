import type Koa from "koa";

/**
 * Each API's Koa app, for `@plant-store/api/koa` only: kept off the `WebhookApi` type so that the root
 * declarations name no Koa type (an Express or Hono project's strict type check would load @types/koa).
 */
const apps = new WeakMap<object, Koa>();

export function setKoaApp(api: object, app: Koa): void {
  apps.set(api, app);
}

export function koaAppOf(api: object): Koa {
  const app = apps.get(api);
  if (!app) throw new TypeError("Not an API made by createWebhookApi()");
  return app;
}
