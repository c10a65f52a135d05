import { createServer, request } from "node:http";
import express from "express";
import Koa from "koa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeMiddleware } from "../../src/index.js";
import { createPlantWebhookMiddleware, createPlantWebhookRouter } from "../../src/koa.js";
import { adapterSuite, keyPair } from "../fixtures/adapter-suite.js";
import { listen } from "../fixtures/listen.js";
import { ROUTE_TOKEN, routeOptions, V1A_PATH } from "../fixtures/vector-routes.js";

describe.each([
  [
    "Koa router",
    () => {
      const app = new Koa();
      for (const options of routeOptions("", keyPair.publicKey)) {
        const router = createPlantWebhookRouter(options);
        app.use(router.routes()).use(router.allowedMethods());
      }
      return createServer(app.callback());
    },
  ],
  [
    "Koa middleware",
    () => {
      const app = new Koa();
      // Each middleware answers its own path and passes every other one on with next().
      for (const options of routeOptions("", keyPair.publicKey))
        app.use(createPlantWebhookMiddleware(options));
      app.use((ctx) => {
        ctx.status = 404;
        ctx.body = { error: 404, message: "Not found" };
      });
      return createServer(app.callback());
    },
  ],
  [
    "node:http middleware",
    () => {
      const middlewares = new Map(
        routeOptions("", keyPair.publicKey).map((options) => [options.path, createNodeMiddleware(options)]),
      );
      // Each middleware answers its own path; a plain request listener has no `next`.
      return createServer((req, res) => {
        const middleware = middlewares.get(req.url?.split("?")[0]);
        if (middleware === undefined) res.writeHead(404).end();
        else void middleware(req, res);
      });
    },
  ],
  [
    "Express 5 app",
    () => {
      const app = express();
      // Mounted with `app.use`: each middleware passes other paths on with next().
      for (const options of routeOptions("", keyPair.publicKey)) app.use(createNodeMiddleware(options));
      app.use((_req, res) => {
        res.status(404).json({ error: 404, message: "Not found" });
      });
      return createServer(app);
    },
  ],
])("%s", (_name, build) => {
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    server = await listen(build());
  });
  afterAll(() => server.close());
  adapterSuite(() => server.origin, { onNode: true });
});

describe("createNodeMiddleware behind a body parser", () => {
  it("answers 500 ERR_BODY_ALREADY_CONSUMED saying a body parser ran first, and works once mounted before it", async () => {
    const options = routeOptions("", keyPair.publicKey).find((o) => o.path === V1A_PATH);
    if (options === undefined) throw new Error("no v1a route");
    const wrong = express();
    wrong.use(express.json());
    wrong.use(createNodeMiddleware(options));
    const right = express();
    right.use(createNodeMiddleware(options));
    right.use(express.json());
    const servers = [await listen(createServer(wrong)), await listen(createServer(right))];
    try {
      const { signDelivery } = await import("@plant-store/sender");
      const body = JSON.stringify({ id: 5, name: "Aloe" });
      const send = (origin: string) =>
        fetch(`${origin}${V1A_PATH}`, {
          method: "POST",
          headers: signDelivery({
            webhookId: `msg_${crypto.randomUUID()}`,
            body,
            secrets: [keyPair.signingKey],
            token: ROUTE_TOKEN,
          }),
          body,
        });
      const refused = await send(servers[0]?.origin as string);
      expect(refused.status).toBe(500);
      expect(await refused.json()).toEqual({
        error: 500,
        message: expect.stringMatching(
          /already read by a body parser.*mount the receiver before any body parser/,
        ),
      });
      const accepted = await send(servers[1]?.origin as string);
      expect(accepted.status).toBe(200);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });
});

describe("createPlantWebhookMiddleware and the request's path", () => {
  it("answers a path an earlier middleware rewrote (as koa-mount does) and an absolute-form target", async () => {
    const options = routeOptions("", keyPair.publicKey).find((o) => o.path === V1A_PATH);
    if (options === undefined) throw new Error("no v1a route");
    const app = new Koa();
    // `/hooks/<path>` is rewritten to `<path>` through Koa's own setter before the webhook sees it.
    app.use((ctx, next) => {
      if (ctx.path.startsWith("/hooks/")) ctx.path = ctx.path.slice("/hooks".length);
      return next();
    });
    app.use(createPlantWebhookMiddleware(options));
    app.use((ctx) => {
      ctx.status = 404;
    });
    const server = await listen(createServer(app.callback()));
    try {
      const { signDelivery } = await import("@plant-store/sender");
      const body = JSON.stringify({ id: 6, name: "Aloe" });
      const headers = () =>
        signDelivery({
          webhookId: `msg_${crypto.randomUUID()}`,
          body,
          secrets: [keyPair.signingKey],
          token: ROUTE_TOKEN,
        });
      const rewritten = await fetch(`${server.origin}/hooks${V1A_PATH}?via=mount`, {
        method: "POST",
        headers: headers(),
        body,
      });
      expect(rewritten.status).toBe(200);
      expect(await rewritten.json()).toEqual({ received: true, duplicate: false });
      const elsewhere = await fetch(`${server.origin}/hooks/other`, {
        method: "POST",
        headers: headers(),
        body,
      });
      expect(elsewhere.status).toBe(404);
      // A request target in absolute form, as sent through a proxy: raw, since fetch never sends one.
      const { port } = new URL(server.origin);
      const absolute = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: "127.0.0.1",
            port,
            method: "POST",
            path: `http://store.example${V1A_PATH}`,
            headers: { ...headers(), "content-length": Buffer.byteLength(body) },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end(body);
      });
      expect(absolute).toBe(200);
    } finally {
      await server.close();
    }
  });
});
