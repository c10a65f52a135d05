import type { AddressInfo } from "node:net";
import { Router } from "@koa/router";
import { generateWebhookSecret } from "@plant-store/types";
import Koa from "koa";
import { afterEach, describe, expect, it } from "vitest";
import { createPlantWebhookRouter } from "../../src/index.js";
import { send } from "../fixtures/start-receiver.js";

const secret = generateWebhookSecret();
const token = "fast-token";

/** What @koa/router leaves on the context, as upstream middleware (metrics, access logs) sees it. */
function routingView(ctx: Koa.Context) {
  const c = ctx as unknown as Record<string, unknown> & { matched?: { path: string; methods: string[] }[] };
  return {
    matched: (c.matched ?? []).map((layer) => ({ path: layer.path, methods: layer.methods })),
    routeMatched: c.routeMatched,
    captures: c.captures,
    params: c.params,
    requestParams: (ctx.request as unknown as { params?: unknown }).params,
    routerPath: c.routerPath,
    routerName: c.routerName,
    matchedRoute: c._matchedRoute,
    hasRouter: c.router !== undefined,
    status: ctx.status,
    outcome: ctx.state.plantWebhook?.outcome,
  };
}

describe("the router's fast path for POST on its exact path", () => {
  const servers: import("node:http").Server[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      server.close();
    }
  });

  async function start(build: (app: Koa, router: ReturnType<typeof createPlantWebhookRouter>) => void) {
    const handled: string[] = [];
    const views: ReturnType<typeof routingView>[] = [];
    const router = createPlantWebhookRouter({
      tokens: [token],
      secrets: [secret],
      onNewPlant: (_plant, delivery) => {
        handled.push(delivery.webhookId);
      },
    });
    const app = new Koa();
    app.use(async (ctx, next) => {
      await next();
      views.push(routingView(ctx));
    });
    build(app, router);
    const server = app.listen(0, "127.0.0.1");
    servers.push(server);
    await new Promise<void>((resolve) => server.once("listening", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { base, handled, views };
  }

  it("leaves on ctx exactly what @koa/router's own dispatch leaves for the same route", async () => {
    const { base, handled, views } = await start((app, router) => {
      app.use(router.routes()).use(router.allowedMethods());
    });
    // The exact path takes the fast path; a trailing slash (also matched by @koa/router, which is
    // not strict) goes through the router's own dispatch.
    expect((await send(`${base}/plant/webhook`, { token, secret, id: "msg_fast" })).status).toBe(200);
    expect((await send(`${base}/plant/webhook/`, { token, secret, id: "msg_router" })).status).toBe(200);
    expect(handled).toEqual(["msg_fast", "msg_router"]);
    expect(views).toHaveLength(2);
    expect(views[0]).toEqual(views[1]);
    expect(views[0]).toMatchObject({
      matched: [{ path: "/plant/webhook" }, { path: "/plant/webhook" }],
      routeMatched: true,
      params: {},
      routerPath: "/plant/webhook",
      matchedRoute: "/plant/webhook",
      hasRouter: true,
      status: 200,
      outcome: "received",
    });
  });

  it("gives way to the router once routes are added to it, and keeps serving both", async () => {
    const { base, handled, views } = await start((app, router) => {
      router.get("/plant/webhook/health", (ctx) => {
        ctx.body = { ok: true };
      });
      router.use((_ctx, next) => next());
      app.use(router.routes()).use(router.allowedMethods());
    });
    const response = await send(`${base}/plant/webhook`, { token, secret, id: "msg_after_use" });
    expect(response.status).toBe(200);
    expect(handled).toEqual(["msg_after_use"]);
    // Only the router's own dispatch lists the layer added with router.use() among the matches.
    expect(views[0]?.matched).toHaveLength(3);
    expect(await (await fetch(`${base}/plant/webhook/health`)).json()).toEqual({ ok: true });
  });

  it("works mounted under a prefix by a parent router", async () => {
    const { base, handled } = await start((app, router) => {
      const parent = new Router();
      parent.use("/hooks", router.routes());
      app.use(parent.routes()).use(parent.allowedMethods());
    });
    expect((await send(`${base}/hooks/plant/webhook`, { token, secret, id: "msg_nested" })).status).toBe(200);
    expect((await send(`${base}/plant/webhook`, { token, secret, id: "msg_unmounted" })).status).toBe(404);
    expect(handled).toEqual(["msg_nested"]);
  });

  it("answers the same bytes as Koa's JSON serialisation for received and duplicate", async () => {
    const { base } = await start((app, router) => {
      app.use(router.routes());
    });
    const first = await send(`${base}/plant/webhook`, { token, secret, id: "msg_bytes" });
    expect(first.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await first.text()).toBe('{"received":true,"duplicate":false}');
    const again = await send(`${base}/plant/webhook`, { token, secret, id: "msg_bytes" });
    expect(again.headers.get("content-length")).toBe(String('{"received":true,"duplicate":true}'.length));
    expect(await again.text()).toBe('{"received":true,"duplicate":true}');
  });
});
