import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteOutbox, type SqliteOutbox } from "@plant-store/sender/sqlite";
import { callApi } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type AuthenticatedAs,
  createWebhookApi,
  InvalidApiOptionsError,
  type WebhookApi,
  type WebhookApiOptions,
} from "../src/index.js";
import { expectDocumented } from "./fixtures/expect-documented.js";

const token = "operator-token-webhook-api-0123";
const portalSecret = "portal-secret-of-at-least-32-characters";
const dir = mkdtempSync(join(tmpdir(), "webhook-api-"));
let outbox: SqliteOutbox;
const opened: Array<{ api: WebhookApi; server: Server }> = [];

/** The API on loopback (node:http, at the root), with `options` over the shared outbox. */
async function serveApi(options: Partial<WebhookApiOptions> = {}) {
  const api = createWebhookApi({ outbox, operatorTokens: [token], ...options });
  const server = createServer(api.node).listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  opened.push({ api, server });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    api,
    call: (method: string, path: string, body?: unknown, bearer: string | null = token) =>
      callApi(base, method, path, { token: bearer, body }),
    base,
  };
}

beforeAll(() => {
  outbox = createSqliteOutbox(join(dir, "outbox.db"));
});

afterEach(async () => {
  for (const { api, server } of opened.splice(0)) {
    await api.close();
    await new Promise((resolve) => server.close(resolve));
  }
});

afterAll(async () => {
  await outbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("createWebhookApi", () => {
  it("refuses options it cannot serve with, at once and naming the problem", () => {
    const cases: Array<[Partial<WebhookApiOptions>, RegExp]> = [
      [{ operatorTokens: [] }, /operatorTokens, an authenticate function/],
      [{ operatorTokens: ["short"] }, /at least 16 characters/],
      [{ operatorTokens: [token], portalSecret: "short" }, /portalSecret must be at least 32/],
      [{ operatorTokens: [token], basePath: "/webhooks/" }, /basePath must look like/],
      [{ operatorTokens: [token], basePath: "webhooks" }, /basePath must look like/],
    ];
    for (const [options, message] of cases) {
      const attempt = () => createWebhookApi({ outbox, ...options });
      expect(attempt, message.source).toThrow(InvalidApiOptionsError);
      expect(attempt, message.source).toThrow(message);
    }
  });
});

describe("POST /messages", () => {
  it("queues a message for every subscribed endpoint, once per idempotency key, and refuses another payload under it", async () => {
    const { call } = await serveApi({ eventTypes: ["order.created", "order.paid"] });
    const subscribed = await outbox.addEndpoint({
      url: "https://receiver.example/orders",
      token: "receiver-token-0123",
      secrets: [generateWebhookSecret()],
      eventTypes: ["order.*"],
    });
    const other = await outbox.addEndpoint({
      url: "https://receiver.example/other",
      token: "receiver-token-0123",
      secrets: [generateWebhookSecret()],
      eventTypes: ["invoice.sent"],
    });
    const message = { eventType: "order.paid", payload: { id: 7 }, idempotencyKey: "order-7-paid" };
    const first = await call("POST", "/messages", message);
    expectDocumented("post", "/messages", first.status, first.body);
    expect(first.status).toBe(202);
    expect(first.headers.get("idempotency-replayed")).toBeNull();
    const again = await call("POST", "/messages", message);
    expect(again.status).toBe(202);
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(again.body).toStrictEqual(first.body);
    const conflict = await call("POST", "/messages", { ...message, payload: { id: 8 } });
    expectDocumented("post", "/messages", conflict.status, conflict.body);
    expect(conflict.status).toBe(409);
    const deliveries = async (endpointId: number) =>
      (await call("GET", `/deliveries?endpointId=${endpointId}`)).body.deliveries as Array<{
        webhookId: string;
      }>;
    expect((await deliveries(subscribed.id)).map((d) => d.webhookId)).toStrictEqual([
      first.body.message.webhookId,
    ]);
    expect(await deliveries(other.id)).toStrictEqual([]);
    await outbox.removeEndpoint(subscribed.id);
    await outbox.removeEndpoint(other.id);
  });

  it("answers bad input 400 naming it, keys that disagree 400, and a subscriber 404", async () => {
    const { call } = await serveApi();
    const cases: Array<[unknown, Record<string, string>, RegExp]> = [
      [{ payload: {} }, {}, /eventType/],
      [{ eventType: "x", payload: [1] }, {}, /payload/],
      [{ eventType: "x", payload: {}, extra: 1 }, {}, /extra/],
      [{ eventType: "x", payload: {}, idempotencyKey: "a" }, { "idempotency-key": "b" }, /differ/],
      [{ eventType: "x", payload: {} }, { "ordering-key": "has space" }, /Ordering-Key/],
    ];
    for (const [body, headers, message] of cases) {
      const answer = await postMessage(body, headers);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expectDocumented("post", "/messages", answer.status, answer.body);
      expect(answer.body.message, JSON.stringify(body)).toMatch(message);
    }
    const { token: subscriberToken } = await outbox.addSubscriber({ name: "Stranger" });
    const stranger = await call("POST", "/messages", { eventType: "x", payload: {} }, subscriberToken);
    expect(stranger.status).toBe(404);
  });
});

/** `POST /messages` with extra headers, to the last API opened. */
async function postMessage(
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; body: { message: string } }> {
  const { server } = opened.at(-1) as { server: Server };
  const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { message: string } };
}

describe("authenticate", () => {
  it("lets the team's own sign-in decide who a request is, and falls back to the tokens", async () => {
    const { subscriber } = await outbox.addSubscriber({ name: "Cookie customer" });
    const own = await outbox.addEndpoint({
      url: "https://customer.example/hook",
      token: "receiver-token-0123",
      secrets: [generateWebhookSecret()],
      subscriberId: subscriber.id,
    });
    const authenticate = (request: IncomingMessage): AuthenticatedAs | undefined => {
      const cookie = request.headers.cookie ?? "";
      if (cookie === "session=operator") return { kind: "operator" };
      if (cookie === "session=customer") return { kind: "subscriber", subscriberId: subscriber.id };
      if (cookie === "session=gone") return { kind: "subscriber", subscriberId: 999_999 };
      return undefined;
    };
    const { base, call } = await serveApi({ authenticate });
    const asCookie = (cookie: string, path: string) => fetch(`${base}${path}`, { headers: { cookie } });
    const customerSees = (await (await asCookie("session=customer", "/endpoints")).json()) as {
      endpoints: Array<{ id: number }>;
    };
    expect(customerSees.endpoints.map((e) => e.id)).toStrictEqual([own.id]);
    expect((await asCookie("session=customer", "/subscribers")).status).toBe(404);
    expect((await asCookie("session=operator", "/subscribers")).status).toBe(200);
    expect((await asCookie("session=gone", "/endpoints")).status).toBe(401);
    // No cookie: the bearer tokens as usual.
    expect((await asCookie("", "/endpoints")).status).toBe(401);
    expect((await call("GET", "/subscribers")).status).toBe(200);
    await outbox.removeEndpoint(own.id);
  });
});

describe("the portal", () => {
  it("exchanges a link once for a session of the subscriber, which a new portalSecret ends", async () => {
    const { call } = await serveApi({ portalSecret });
    const { subscriber } = await outbox.addSubscriber({ name: "Portal customer" });
    const link = await call("POST", `/subscribers/${subscriber.id}/portal-links`, {});
    expectDocumented("post", "/subscribers/{id}/portal-links", link.status, link.body);
    expect(link.status).toBe(201);
    const credential = new URL(link.body.url, "http://x").hash.slice(1);
    const exchanged = await call("POST", "/portal-sessions", { link: credential }, null);
    expect(exchanged.status).toBe(201);
    const session = exchanged.body.session as string;
    expect((await call("POST", "/portal-sessions", { link: credential }, null)).status).toBe(401);
    const me = await call("GET", "/me", undefined, session);
    expect(me.body).toMatchObject({ kind: "subscriber", subscriber: { id: subscriber.id } });
    // Another API over the same outbox with another secret does not know the session.
    const other = await serveApi({ portalSecret: `${portalSecret}-rotated` });
    expect((await other.call("GET", "/me", undefined, session)).status).toBe(401);
    expect((await call("GET", "/me", undefined, session)).status).toBe(200);
  });

  it("is off without a portalSecret: no link routes, no portal sessions", async () => {
    const { call } = await serveApi();
    const { subscriber } = await outbox.addSubscriber({ name: "No portal" });
    expect((await call("POST", `/subscribers/${subscriber.id}/portal-links`, {})).status).toBe(404);
    expect((await call("POST", "/portal-sessions", { link: "psl_x" }, null)).status).toBe(401);
  });
});
