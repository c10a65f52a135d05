import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { createSqliteOutbox, type SqliteOutbox } from "@plant-store/sender/sqlite";
import { generateWebhookSecret } from "@plant-store/types";
import express from "express";
import { Hono } from "hono";
import Koa from "koa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookApi, type WebhookApi } from "../src/index.js";
import { webhookApiMiddleware } from "../src/koa.js";
import { expectDocumented } from "./fixtures/expect-documented.js";

// The API mounted the four ways the README shows, each under /webhooks and each served by the framework
// itself on loopback: the same answers, the pages, and listen's stream arriving line by line.
const token = "operator-token-adapters-0123";
const dir = mkdtempSync(join(tmpdir(), "webhook-api-adapters-"));
let outbox: SqliteOutbox;
const servers: Array<{ close(): void }> = [];
const apis: WebhookApi[] = [];

const listening = async (server: Server) => {
  if (!server.listening) await once(server, "listening");
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const make = (basePath?: string) => {
  const api = createWebhookApi({
    outbox,
    operatorTokens: [token],
    eventTypes: ["order.created"],
    ...(basePath ? { basePath } : {}),
  });
  apis.push(api);
  return api;
};

const mounts: Record<string, () => Promise<string>> = {
  "node:http with basePath": async () =>
    listening(createServer(make("/webhooks").node).listen(0, "127.0.0.1")),
  "Express app.use": async () => {
    const app = express();
    app.get("/", (_req, res) => {
      res.send("the team's own page");
    });
    app.use("/webhooks", make().node);
    return listening(app.listen(0, "127.0.0.1"));
  },
  "Hono app.all with api.fetch": async () => {
    const api = make("/webhooks");
    const app = new Hono();
    app.get("/", (c) => c.text("the team's own page"));
    app.all("/webhooks/*", (c) => api.fetch(c.req.raw, { remoteAddress: "127.0.0.1" }));
    app.all("/webhooks", (c) => api.fetch(c.req.raw, { remoteAddress: "127.0.0.1" }));
    const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
    return listening(server);
  },
  "Koa webhookApiMiddleware": async () => {
    const app = new Koa();
    app.use(webhookApiMiddleware(make(), "/webhooks"));
    app.use((ctx) => {
      ctx.body = "the team's own page";
    });
    return listening(app.listen(0, "127.0.0.1"));
  },
};

beforeAll(() => {
  outbox = createSqliteOutbox(join(dir, "outbox.db"));
});

afterAll(async () => {
  for (const api of apis) await api.close();
  for (const server of servers) server.close();
  await outbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const bearer = { authorization: `Bearer ${token}` };

describe.each(Object.keys(mounts))("mounted with %s", (name) => {
  let base: string;
  beforeAll(async () => {
    base = await (mounts[name] as () => Promise<string>)();
  });

  it("serves the API under /webhooks and leaves the rest of the service alone", async () => {
    const health = await fetch(`${base}/webhooks/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toStrictEqual({ ok: true });
    const anonymous = await fetch(`${base}/webhooks/endpoints`);
    expect(anonymous.status).toBe(401);
    expectDocumented("get", "/endpoints", 401, await anonymous.json());
    const own = await fetch(`${base}/`);
    if (name.startsWith("node:http")) expect(own.status).toBe(404);
    else expect(await own.text()).toBe("the team's own page");
  });

  it("sends a message to the endpoints subscribed to its event type", async () => {
    const endpoint = await outbox.addEndpoint({
      url: "https://receiver.example/hook",
      token: "receiver-token-0123",
      secrets: [generateWebhookSecret()],
      eventTypes: ["order.created"],
    });
    const sent = await fetch(`${base}/webhooks/messages`, {
      method: "POST",
      headers: {
        ...bearer,
        "content-type": "application/json",
        "idempotency-key": `order-${name.replace(/\W+/g, "-")}`,
      },
      body: JSON.stringify({ eventType: "order.created", payload: { id: 42 } }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: the documented answer, checked just below.
    const body: any = await sent.json();
    expectDocumented("post", "/messages", sent.status, body);
    expect(sent.status, JSON.stringify(body)).toBe(202);
    expect(body.queued).toBeGreaterThanOrEqual(1);
    const deliveries = await fetch(`${base}/webhooks/deliveries?endpointId=${endpoint.id}`, {
      headers: bearer,
    });
    // biome-ignore lint/suspicious/noExplicitAny: the documented answer, checked just below.
    const listed: any = await deliveries.json();
    expectDocumented("get", "/deliveries", deliveries.status, listed);
    expect(listed.deliveries.map((d: { webhookId: string }) => d.webhookId)).toContain(
      body.message.webhookId,
    );
    await outbox.removeEndpoint(endpoint.id);
  });

  it("serves the operator page and the portal under the mount path, with their CSP", async () => {
    for (const path of ["/webhooks/", "/webhooks/portal"]) {
      const page = await fetch(`${base}${path}`);
      expect(page.status, path).toBe(200);
      expect(page.headers.get("content-type"), path).toMatch(/^text\/html/);
      expect(page.headers.get("content-security-policy"), path).toMatch(/script-src 'sha256-/);
      expect(await page.text(), path).toContain("<script>");
    }
  });

  it("streams listen's session line before the stream ends, and removes its endpoint when the client goes", async () => {
    const controller = new AbortController();
    const opened = await fetch(`${base}/webhooks/listen`, {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json" },
      body: "{}",
      signal: controller.signal,
    });
    expect(opened.status).toBe(200);
    const reader = (opened.body as ReadableStream<Uint8Array>).getReader();
    const first = JSON.parse(new TextDecoder().decode((await reader.read()).value).split("\n")[0] as string);
    expect(first.type).toBe("session");
    // The relay is made on the connection's own address and under the mount path.
    expect(first.endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks\/relay\/lst_[0-9a-f]{32}$/);
    expect(await outbox.getEndpoint(first.endpoint.id)).toBeDefined();
    controller.abort();
    await reader.closed.catch(() => undefined);
    await expect.poll(async () => outbox.getEndpoint(first.endpoint.id)).toBeUndefined();
  });
});
