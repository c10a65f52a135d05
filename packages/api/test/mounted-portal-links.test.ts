import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteOutbox, type SqliteOutbox } from "@plant-store/sender/sqlite";
import Koa from "koa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookApi, type WebhookApi } from "../src/index.js";
import { webhookApiMiddleware } from "../src/koa.js";
import { expectDocumented } from "./fixtures/expect-documented.js";

// A portal link is a URL the operator hands to a subscriber: under a mount path (`/webhooks`) it must
// name the portal there, where the pages are, for each adapter. Found from outside: in an Express and a
// Hono project the links pointed at `/portal`, the host's own page or a 404.
const adminToken = "admin-token-mounted-portal-0123";
const portalSecret = "a-portal-secret-of-at-least-32-characters";
const dir = mkdtempSync(join(tmpdir(), "plant-store-mounted-portal-"));
let outbox: SqliteOutbox;
const servers: Server[] = [];

beforeAll(() => {
  outbox = createSqliteOutbox(join(dir, "store.db"));
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await outbox.close();
  rmSync(dir, { recursive: true, force: true });
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const api = (options: { basePath?: string } = {}): WebhookApi =>
  createWebhookApi({ outbox, operatorTokens: [adminToken], portalSecret, ...options });

/** Asks for a new subscriber's portal link through `send` (a request to a path under the mount). */
async function portalLinkThrough(send: (path: string, init: RequestInit) => Promise<Response>) {
  const headers = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" };
  const added = await send("/webhooks/subscribers", {
    method: "POST",
    headers,
    body: JSON.stringify({ name: "Mounted" }),
  });
  expect(added.status).toBe(201);
  const { subscriber } = (await added.json()) as { subscriber: { id: number } };
  const link = await send(`/webhooks/subscribers/${subscriber.id}/portal-links`, {
    method: "POST",
    headers,
    body: "{}",
  });
  const body = (await link.json()) as { url: string };
  expectDocumented("post", "/subscribers/{id}/portal-links", link.status, body);
  return body.url;
}

describe("portal links under a mount path", () => {
  it("node:http with basePath: the link names /webhooks/portal, which serves the portal", async () => {
    const base = await listen(createServer(api({ basePath: "/webhooks" }).node));
    const url = await portalLinkThrough((path, init) => fetch(`${base}${path}`, init));
    expect(url).toMatch(new RegExp(`^${base}/webhooks/portal#psl_[A-Za-z0-9_-]+$`));
    const page = await fetch(url.split("#")[0] as string);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });

  it("Koa under a prefix: the link names the prefix", async () => {
    const app = new Koa();
    app.use(webhookApiMiddleware(api(), "/webhooks"));
    const base = await listen(createServer(app.callback()));
    const url = await portalLinkThrough((path, init) => fetch(`${base}${path}`, init));
    expect(url).toMatch(new RegExp(`^${base}/webhooks/portal#psl_[A-Za-z0-9_-]+$`));
  });

  it("fetch with basePath: the link is on the request URL's origin, even with no Host header", async () => {
    const { fetch: handle } = api({ basePath: "/webhooks" });
    // What Hono's `getConnInfo(c).remote.address` gives: a string, or undefined when it does not know.
    const remoteAddress: string | undefined = undefined;
    const url = await portalLinkThrough((path, init) =>
      handle(new Request(`https://shop.example${path}`, init), { remoteAddress }),
    );
    expect(url).toMatch(/^https:\/\/shop\.example\/webhooks\/portal#psl_[A-Za-z0-9_-]+$/);
    const page = await handle(new Request(url.split("#")[0] as string));
    expect(page.status).toBe(200);
  });
});
