import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ApiRoute, createPortalAccess, type WebhookApi } from "@plant-store/api";
import { webhookApiKoa } from "@plant-store/api/koa";
import { callApi } from "@plant-store/testing";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApi } from "../../src/create-admin-app.js";
import { openStore, type Store } from "../../src/open-store.js";
import { adminSpec as spec } from "../fixtures/expect-documented.js";

// The route tables against the document and against the access rules they make: generated from the
// tables, so a route added later is checked without a line here.
const adminToken = "admin-token-route-tables-0123";
const dir = mkdtempSync(join(tmpdir(), "plant-store-routes-"));
const GUARD_MESSAGE = "Missing or wrong token (Authorization: Bearer <token>)";
let store: Store;
let api: WebhookApi;
let server: Server;
let base: string;
let routes: readonly ApiRoute[];
let subscriberToken: string;

beforeAll(async () => {
  store = await openStore(join(dir, "store.db"));
  // Every optional table on: the portal's and listen's routes are in the document too.
  api = createAdminApi({
    outbox: store.outbox,
    plants: store.plants,
    adminToken,
    registry: new Registry(),
    portal: createPortalAccess(store.portalCredentials),
    timeoutMs: 1000,
  });
  routes = api.routes;
  server = webhookApiKoa(api).listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ({ token: subscriberToken } = await store.outbox.addSubscriber({ name: "Route prober" }));
});

afterAll(async () => {
  await api.close();
  await new Promise((resolve) => server.close(resolve));
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `/endpoints/:id` as the document writes it: `/endpoints/{id}`. */
const documented = (path: string) => path.replace(/:(\w+)/g, "{$1}");
/** A path to call for a row: every parameter a well-formed value that names nothing stored. */
const concrete = (path: string) =>
  path.replace(/:(\w+)/g, (_, name: string) => (name === "session" ? `lst_${"0".repeat(32)}` : "999"));
const named = (route: ApiRoute) => `${route.method} ${route.path} (${route.resource})`;

describe("the admin API's route tables", () => {
  it("hold every operation of admin-openapi.json, and the document every route of the tables", () => {
    const inTables = routes.map((route) => `${route.method.toLowerCase()} ${documented(route.path)}`);
    const inDocument = Object.entries(spec.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, item]) =>
        Object.keys(item)
          .filter((key) => ["get", "post", "put", "patch", "delete"].includes(key))
          .map((method) => `${method} ${path}`),
    );
    expect(new Set(inTables).size, "no route declared twice").toBe(inTables.length);
    expect([...inTables].sort()).toStrictEqual([...inDocument].sort());
  });

  it("give each route the access its operation's security in the document says", () => {
    type Security = Array<Record<string, unknown>> | undefined;
    for (const route of routes) {
      const security = spec.paths[documented(route.path)][route.method.toLowerCase()].security as Security;
      const schemes = (security ?? spec.security).flatMap((requirement: object) => Object.keys(requirement));
      // The relay checks the temporary endpoint's own token, not the admin API's credentials; a route
      // an endpoint's own token opens checks every credential in its handler (events).
      const expected =
        schemes.every((scheme: string) => scheme === "listenEndpointToken") ||
        schemes.includes("endpointToken")
          ? "public"
          : schemes.includes("subscriberToken") || schemes.includes("portalLink")
            ? "subscriber-or-operator"
            : "operator";
      expect(route.access, named(route)).toBe(expected);
    }
  });

  it("answer 401 to a request without a credential on every route but the public ones, which never ask for one", async () => {
    for (const route of routes) {
      const answer = await callApi(base, route.method, concrete(route.path));
      if (route.access === "public") {
        expect(answer.body?.message, named(route)).not.toBe(GUARD_MESSAGE);
        continue;
      }
      expect(answer.status, named(route)).toBe(401);
      expect(answer.headers.get("www-authenticate"), named(route)).toBe('Bearer realm="webhooks"');
      expect(answer.body, named(route)).toStrictEqual({ error: 401, message: GUARD_MESSAGE });
    }
  });

  it("answer a subscriber's token 404 on every operator's route, as a path that does not exist, and let it through on its own", async () => {
    const unknown = await callApi(base, "GET", "/nowhere", { token: subscriberToken });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toStrictEqual({ error: 404, message: "Route not found" });
    for (const route of routes) {
      if (route.access === "public") continue;
      const answer = await callApi(base, route.method, concrete(route.path), { token: subscriberToken });
      if (route.access === "operator") {
        expect(answer.status, named(route)).toBe(unknown.status);
        expect(answer.body, named(route)).toStrictEqual(unknown.body);
        continue;
      }
      expect(answer.status, named(route)).not.toBe(401);
      expect(answer.body, named(route)).not.toStrictEqual(unknown.body);
    }
  });

  it("hold a request no route takes to the operator's rule, a public path with another method included", async () => {
    for (const [method, path] of [
      ["DELETE", "/healthz"],
      ["POST", "/portal"],
      ["PUT", "/endpoints"],
      ["OPTIONS", "/endpoints"],
    ] as const) {
      expect((await callApi(base, method, path)).status, `${method} ${path}`).toBe(401);
      const subscriber = await callApi(base, method, path, { token: subscriberToken });
      expect(subscriber.body, `${method} ${path}`).toStrictEqual({ error: 404, message: "Route not found" });
      const operator = await callApi(base, method, path, { token: adminToken });
      expect(operator.status, `${method} ${path}`).toBe(method === "OPTIONS" ? 200 : 405);
      expect(operator.headers.get("allow"), `${method} ${path}`).toBeTruthy();
    }
    // The router's own matching decides for a subscriber too: a trailing slash is the same route.
    expect((await callApi(base, "GET", "/endpoints/", { token: subscriberToken })).status).toBe(200);
  });
});
