import { mkdtempSync, rmSync } from "node:fs";
import { request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRetryPolicy, createSsrfGuard, type Outbox } from "@plant-store/sender";
import { callApi } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApp } from "../../src/create-admin-app.js";
import { openStore, type Store } from "../../src/open-store.js";
import { expectDocumented, adminSpec as spec } from "../fixtures/expect-documented.js";

describe("the admin API, checked against admin-openapi.json", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-admin-"));
  const adminToken = "admin-token-0123456789";
  let outbox: Outbox;
  let store: Store;
  let server: Server;
  let base: string;
  let woken = 0;
  const registry = new Registry();

  beforeAll(async () => {
    store = await openStore(join(dir, "store.db"));
    outbox = store.outbox;
    const app = createAdminApp({
      outbox,
      plants: store.plants,
      adminToken,
      registry,
      wake: () => {
        woken += 1;
      },
    });
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (method: string, url: string, body?: unknown, token = adminToken) =>
    callApi(base, method, url, { token, body });

  it("answers 401 without the token whatever the method or path, so the API cannot be mapped without it", async () => {
    // A wrong method used to answer 405 with an Allow list, and an unknown path 404, before the token
    // was looked at: real paths and their methods could be told from the rest.
    for (const [method, path] of [
      ["OPTIONS", "/plants"],
      ["PUT", "/plants"],
      ["GET", "/endpoints/1"],
      ["OPTIONS", "/deliveries/1"],
      ["DELETE", "/deliveries"],
      ["GET", "/nowhere"],
      ["GET", "/sessions"],
      ["POST", "/login-codes"],
      // A public route's path with another method is no route either (isPublic() let these through
      // by path to the router's 405 and Allow list before the routes were declared in tables).
      ["DELETE", "/healthz"],
      ["POST", "/"],
      ["OPTIONS", "/portal"],
    ] as const) {
      const anonymous = await fetch(`${base}${path}`, { method });
      expect(anonymous.status, `${method} ${path}`).toBe(401);
      expect(anonymous.headers.get("allow"), `${method} ${path}`).toBeNull();
      expect(await anonymous.json()).toEqual({
        error: 401,
        message: "Missing or wrong token (Authorization: Bearer <token>)",
      });
    }
    // With the token, the same requests are told apart as before.
    expect((await call("PUT", "/plants")).status).toBe(405);
    expect((await call("GET", "/nowhere")).status).toBe(404);
    const allowed = await fetch(`${base}/plants`, {
      method: "OPTIONS",
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("allow")).toContain("POST");
  });

  /** GET `path` from `localAddress` (any of 127/8 is this host): one client among several. */
  function getFrom(localAddress: string, path: string, token: string) {
    const { port } = new URL(base);
    return new Promise<{ status: number; retryAfter: string | undefined; body: string }>(
      (resolve, reject) => {
        const req = request(
          { host: "127.0.0.1", port, path, localAddress, headers: { authorization: `Bearer ${token}` } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (chunk: Buffer) => chunks.push(chunk));
            res.on("end", () =>
              resolve({
                status: res.statusCode ?? 0,
                retryAfter: res.headers["retry-after"],
                body: Buffer.concat(chunks).toString("utf8"),
              }),
            );
          },
        );
        req.on("error", reject);
        req.end();
      },
    );
  }

  it("slows down a client guessing the token: 20 wrong ones, then 429 with Retry-After, the right one too", async () => {
    const statuses: number[] = [];
    for (let guess = 0; guess < 25; guess++)
      statuses.push((await getFrom("127.0.5.1", "/plants", `guess-${guess}-0123456789`)).status);
    // Before, 7,800 guesses a second from one client were all answered 401.
    expect(statuses).toEqual([...Array(20).fill(401), ...Array(5).fill(429)]);
    const right = await getFrom("127.0.5.1", "/plants", adminToken);
    expect(right.status).toBe(429);
    expect(Number(right.retryAfter)).toBeGreaterThanOrEqual(1);
    expectDocumented("get", "/plants", right.status, JSON.parse(right.body));
    // Another client is not slowed down by the first.
    expect((await getFrom("127.0.5.2", "/plants", adminToken)).status).toBe(200);
    const metrics = await registry.metrics();
    expect(metrics).toContain('webhook_api_auth_refusals_total{outcome="wrong"} 20');
    expect(metrics).toContain('webhook_api_auth_refusals_total{outcome="throttled"} 6');
  });

  it("signs a page in with a single-use code or the admin token, as documented, and the session works every route", async () => {
    const issued = await call("POST", "/login-codes");
    expectDocumented("post", "/login-codes", issued.status, issued.body);
    const exchange = (credential: unknown) => call("POST", "/sessions", credential, "");
    const opened = await exchange({ code: issued.body.code });
    expect(opened.status).toBe(201);
    expectDocumented("post", "/sessions", opened.status, opened.body);
    const again = await exchange({ code: issued.body.code });
    expectDocumented("post", "/sessions", again.status, again.body);
    expect(again.status).toBe(401);
    const { session } = opened.body as { session: string };
    const listed = await call("GET", "/endpoints", undefined, session);
    expectDocumented("get", "/endpoints", listed.status, listed.body);
    const denied = await call("POST", "/login-codes", undefined, session);
    expectDocumented("post", "/login-codes", denied.status, denied.body);
    const byToken = await exchange({ token: adminToken });
    expectDocumented("post", "/sessions", byToken.status, byToken.body);
    const closed = await call("DELETE", "/sessions/current", undefined, session);
    expectDocumented("delete", "/sessions/current", closed.status, closed.body);
    expect((await call("GET", "/endpoints", undefined, session)).status).toBe(401);
  });

  it("answers healthz without a token", async () => {
    const { status, body } = await call("GET", "/healthz", undefined, "");
    expectDocumented("get", "/healthz", status, body);
  });

  it("refuses a missing or wrong admin token with 401 and the Error body", async () => {
    for (const token of ["", "wrong-token-0123456789"]) {
      const { status, body } = await call("GET", "/plants", undefined, token);
      expect(status).toBe(401);
      expectDocumented("get", "/plants", status, body);
    }
  });

  it("adds and lists endpoints without ever returning a token or a chosen secret", async () => {
    const secret = generateWebhookSecret();
    const added = await call("POST", "/endpoints", {
      url: "https://receiver.example/plant/webhook",
      token: "tok-1",
      secret,
    });
    expect(added.status).toBe(201);
    expectDocumented("post", "/endpoints", added.status, added.body);
    expect(JSON.stringify(added.body)).not.toContain(secret);
    const generated = await call("POST", "/endpoints", { url: "https://other.example/hook", token: "tok-2" });
    expectDocumented("post", "/endpoints", generated.status, generated.body);
    expect(generated.body.secret).toMatch(/^whsec_/);
    const listed = await call("GET", "/endpoints");
    expectDocumented("get", "/endpoints", listed.status, listed.body);
    expect(listed.body.endpoints).toHaveLength(2);
    expect(JSON.stringify(listed.body)).not.toMatch(/tok-1|tok-2|whsec_/);
  });

  it("refuses an endpoint on port 0 with 400, and takes any other port (22, 6379, 8443)", async () => {
    const refused = await call("POST", "/endpoints", {
      url: "http://receiver.example:0/plant/webhook",
      token: "t",
    });
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 400,
      body: { error: 400, message: "Invalid endpoint: url: must not use port 0" },
    });
    for (const port of [22, 6379, 8443]) {
      const added = await call("POST", "/endpoints", {
        url: `https://port.example:${port}/hook`,
        token: "t",
      });
      expect(added.status, String(port)).toBe(201);
      expect((await call("DELETE", `/endpoints/${added.body.endpoint.id}`)).status).toBe(204);
    }
  });

  it("rotates an endpoint's token and secrets with PATCH, validating strictly and never echoing them", async () => {
    const [kept, added] = [generateWebhookSecret(), generateWebhookSecret()];
    const rotated = await call("PATCH", "/endpoints/1", { secrets: [kept, added] });
    expect(rotated.status).toBe(200);
    expectDocumented("patch", "/endpoints/{id}", rotated.status, rotated.body);
    expect(rotated.body.endpoint.secretCount).toBe(2);
    const token = await call("PATCH", "/endpoints/1", { token: "tok-rotated" });
    expectDocumented("patch", "/endpoints/{id}", token.status, token.body);
    const both = await call("PATCH", "/endpoints/1", { token: "tok-both", secrets: [added] });
    expectDocumented("patch", "/endpoints/{id}", both.status, both.body);
    for (const answer of [rotated, token, both])
      expect(JSON.stringify(answer.body)).not.toMatch(/tok-|whsec_/);
    expect(await outbox.getEndpoint(1)).toMatchObject({ token: "tok-both", secrets: [added] });

    const single = generateWebhookSecret();
    for (const body of [
      {},
      { token: "" },
      { secrets: [] },
      { secrets: ["whsec_nope"] },
      { token: "tok-sneaky", url: "ftp://elsewhere.example/hook" },
      { secret: single },
    ]) {
      const bad = await call("PATCH", "/endpoints/1", body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expectDocumented("patch", "/endpoints/{id}", bad.status, bad.body);
      for (const secretish of ["tok-sneaky", "whsec_nope", single])
        expect(bad.body.message).not.toContain(secretish);
    }
    const missing = await call("PATCH", "/endpoints/999", { token: "tok-x" });
    expect(missing.status).toBe(404);
    expectDocumented("patch", "/endpoints/{id}", missing.status, missing.body);
    expect(await outbox.getEndpoint(1)).toMatchObject({ token: "tok-both", secrets: [added] });
  });

  it("validates input and names every problem", async () => {
    const bad = await call("POST", "/endpoints", { url: "ftp://x", token: "", secret: "nope" });
    expect(bad.status).toBe(400);
    expectDocumented("post", "/endpoints", bad.status, bad.body);
    expect(bad.body.message).toMatch(/url/);
    expect(bad.body.message).toMatch(/token/);
    expect(bad.body.message).toMatch(/secret/);
    expect(bad.body.message).not.toContain("nope");
    const plant = await call("POST", "/plants", { name: "" });
    expectDocumented("post", "/plants", plant.status, plant.body);
    const type = await fetch(`${base}/plants`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "text/plain" },
      body: "name=x",
    });
    expect(type.status).toBe(415);
    // Not JSON, whatever its name starts with.
    const seq = await fetch(`${base}/plants`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json-seq" },
      body: '\u001e{"name":"Sequenced"}\n',
    });
    expect(seq.status).toBe(415);
    const charset = await fetch(`${base}/plants`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "Application/JSON; charset=utf-8" },
      body: JSON.stringify({ name: "" }),
    });
    expect(charset.status).toBe(400);
  });

  it("adds a plant, queues its deliveries and wakes the worker", async () => {
    const before = woken;
    const added = await call("POST", "/plants", { name: "Monstera deliciosa", tag: "tropical" });
    expect(added.status).toBe(201);
    expectDocumented("post", "/plants", added.status, added.body);
    expect(added.body.queued).toBe(2);
    expect(woken).toBeGreaterThan(before);
    const listed = await call("GET", "/plants");
    expectDocumented("get", "/plants", listed.status, listed.body);
  });

  it("lists, shows and retries deliveries, and replays an endpoint", async () => {
    const listed = await call("GET", "/deliveries?status=pending&limit=10");
    expectDocumented("get", "/deliveries", listed.status, listed.body);
    const [first] = listed.body.deliveries;
    const shown = await call("GET", `/deliveries/${first.id}`);
    expectDocumented("get", "/deliveries/{id}", shown.status, shown.body);
    const retried = await call("POST", `/deliveries/${first.id}/retry`);
    expectDocumented("post", "/deliveries/{id}/retry", retried.status, retried.body);
    const replayed = await call("POST", "/replay", {
      endpointId: first.endpointId,
      since: "2000-01-01T00:00:00Z",
    });
    expectDocumented("post", "/replay", replayed.status, replayed.body);
    expect(replayed.body.queued).toBe(1);
    const badQuery = await call("GET", "/deliveries?status=lost");
    expectDocumented("get", "/deliveries", badQuery.status, badQuery.body);
    // A misspelt filter is refused, not ignored (which would list every delivery as if it matched).
    const unknown = await call("GET", "/deliveries?state=failed");
    expect(unknown.status).toBe(400);
    expectDocumented("get", "/deliveries", unknown.status, unknown.body);
    expect(unknown.body.message).toMatch(/state/);
  });

  it("answers 404 with the Error body for unknown ids", async () => {
    for (const [method, path, template] of [
      ["GET", "/deliveries/999", "/deliveries/{id}"],
      ["POST", "/deliveries/999/retry", "/deliveries/{id}/retry"],
      ["POST", "/endpoints/999/disable", "/endpoints/{id}/disable"],
      ["DELETE", "/endpoints/999", "/endpoints/{id}"],
    ] as const) {
      const { status, body } = await call(method, path);
      expect(status).toBe(404);
      expectDocumented(method.toLowerCase(), template, status, body);
    }
    const replay = await call("POST", "/replay", { endpointId: 999, since: "2000-01-01T00:00:00Z" });
    expect(replay.status).toBe(404);
  });

  it("disables, enables and removes an endpoint", async () => {
    const disabled = await call("POST", "/endpoints/2/disable");
    expectDocumented("post", "/endpoints/{id}/disable", disabled.status, disabled.body);
    expect(disabled.body.endpoint.status).toBe("disabled");
    const enabled = await call("POST", "/endpoints/2/enable");
    expectDocumented("post", "/endpoints/{id}/enable", enabled.status, enabled.body);
    const removed = await call("DELETE", "/endpoints/2");
    expect(removed.status).toBe(204);
    expectDocumented("delete", "/endpoints/{id}", removed.status, removed.body);
  });

  it("answers a known path with a wrong method with 405, the Error body and Allow, as documented", async () => {
    for (const [method, url, template] of [
      ["PUT", "/plants", "/plants"],
      ["PUT", "/endpoints/1", "/endpoints/{id}"],
      ["DELETE", "/healthz", "/healthz"],
    ] as const) {
      const response = await fetch(`${base}${url}`, {
        method,
        headers: { authorization: `Bearer ${adminToken}` },
      });
      const body = await response.json();
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBeTruthy();
      for (const documented of Object.keys(spec.paths[template])) {
        expectDocumented(documented, template, response.status, body);
        expect(spec.paths[template][documented].responses["405"].headers.Allow).toBeDefined();
      }
    }
  });

  it("documents 503 with the Error body and Retry-After on every operation that reads or writes the store", () => {
    for (const [path, item] of Object.entries(
      spec.paths as Record<
        string,
        Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>
      >,
    )) {
      // The page's sign-in lives in this process's memory, and neither the listen relay nor a listen answer
      // touches the database (they pass messages in memory).
      if (
        [
          "/healthz",
          "/metrics",
          "/",
          "/portal",
          "/login-codes",
          "/sessions",
          "/sessions/current",
          "/relay/{session}",
          "/listen/{session}/answers/{request}",
        ].includes(path)
      )
        continue;
      for (const [method, operation] of Object.entries(item)) {
        expect(operation.responses["503"]?.headers?.["Retry-After"], `${method} ${path}`).toBeDefined();
        expectDocumented(method, path, 503, {
          error: 503,
          message: "The database is unavailable (SQLITE_BUSY); try again",
        });
      }
    }
  });

  /** Runs `use` against a second admin app on the same store, this one given an SSRF guard. */
  async function withSsrfGuard(use: (guardedBase: string) => Promise<void>): Promise<void> {
    const guarded = createAdminApp({
      outbox,
      plants: store.plants,
      adminToken,
      registry: new Registry(),
      checkTarget: (url) => createSsrfGuard().check(url),
    }).listen(0, "127.0.0.1");
    await new Promise((resolve) => guarded.once("listening", resolve));
    try {
      await use(`http://127.0.0.1:${(guarded.address() as AddressInfo).port}`);
    } finally {
      await new Promise((resolve) => guarded.close(resolve));
    }
  }

  it("refuses an endpoint on a private address when given the SSRF guard", async () => {
    await withSsrfGuard(async (guardedBase) => {
      const { status, body } = await callApi(guardedBase, "POST", "/endpoints", {
        token: adminToken,
        body: { url: "http://169.254.169.254/latest/meta-data", token: "t" },
      });
      expect(status).toBe(400);
      expectDocumented("post", "/endpoints", status, body);
      expect(body.message).toMatch(/non-public address/);
    });
  });

  it("moves an endpoint to another URL with PATCH, checking it exactly as POST checks a new one", async () => {
    const added = await call("POST", "/endpoints", { url: "https://before.example/hook", token: "tok-m" });
    const { id } = added.body.endpoint;
    const moved = await call("PATCH", `/endpoints/${id}`, { url: "https://after.example/hook" });
    expect(moved.status).toBe(200);
    expectDocumented("patch", "/endpoints/{id}", moved.status, moved.body);
    // The operator's endpoints need no handshake: it stays verified, and keeps its id and token.
    expect(moved.body.endpoint).toMatchObject({ id, url: "https://after.example/hook", verified: true });
    expect(await outbox.getEndpoint(id)).toMatchObject({ token: "tok-m" });

    // What POST refuses, PATCH refuses with the same message, and the endpoint stays where it was.
    for (const [url, message] of [
      ["ftp://after.example/hook", "url: Invalid URL"],
      ["not a url", "url: Invalid URL"],
      ["https://user:pw@after.example/hook", "url: must not contain credentials"],
      ["https://after.example:0/hook", "url: must not use port 0"],
      [`https://after.example/${"x".repeat(2048)}`, "url: Too big"],
    ] as const) {
      const created = await call("POST", "/endpoints", { url, token: "t" });
      const refused = await call("PATCH", `/endpoints/${id}`, { url });
      expect([created.status, refused.status], url.slice(0, 40)).toEqual([400, 400]);
      expectDocumented("patch", "/endpoints/{id}", refused.status, refused.body);
      expect(created.body.message).toContain(message);
      expect(refused.body.message).toBe(created.body.message.replace("endpoint:", "endpoint update:"));
      expect(refused.body.message).not.toContain("user:pw");
    }
    expect((await call("GET", `/endpoints/${id}`)).body.endpoint.url).toBe("https://after.example/hook");

    // Two endpoints may share a URL (two owners may run the same receiver, and the store does not ask
    // whether an URL is taken): POST takes one another endpoint has, and so does PATCH.
    const twin = await call("POST", "/endpoints", { url: "https://after.example/hook", token: "tok-t" });
    expect(twin.status).toBe(201);
    const shared = await call("PATCH", `/endpoints/${twin.body.endpoint.id}`, {
      url: "https://before.example/hook",
    });
    expect(shared.status).toBe(200);
    expect((await call("PATCH", `/endpoints/${id}`, { url: "https://before.example/hook" })).status).toBe(
      200,
    );
    for (const endpoint of [id, twin.body.endpoint.id])
      expect((await call("DELETE", `/endpoints/${endpoint}`)).status).toBe(204);
  });

  it("refuses a move to a private address when given the SSRF guard, as it refuses such a new endpoint", async () => {
    const added = await call("POST", "/endpoints", { url: "https://public.example/hook", token: "tok-p" });
    try {
      await withSsrfGuard(async (guardedBase) => {
        const patch = (url: string) =>
          callApi(guardedBase, "PATCH", `/endpoints/${added.body.endpoint.id}`, {
            token: adminToken,
            body: { url },
          });
        for (const url of [
          "http://169.254.169.254/latest/meta-data",
          "http://127.0.0.1:8080/hook",
          "http://[::1]/",
        ]) {
          const { status, body } = await patch(url);
          expect(status, url).toBe(400);
          expectDocumented("patch", "/endpoints/{id}", status, body);
          expect(body.message).toMatch(/^Invalid endpoint update: url: .*non-public address/);
        }
        expect((await outbox.getEndpoint(added.body.endpoint.id))?.url).toBe("https://public.example/hook");
        // A public address passes the same guard.
        expect((await patch("http://93.184.215.14/hook")).status).toBe(200);
      });
    } finally {
      await call("DELETE", `/endpoints/${added.body.endpoint.id}`);
    }
  });

  it("serves the store page without a token: no data in it, and a CSP that runs only its own script", async () => {
    const response = await fetch(`${base}/`);
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(spec.paths["/"].get.responses["200"].content["text/html"]).toBeDefined();
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(html).toContain("sessionStorage");
    // The page is the same for everyone: no token, no endpoint, no delivery in it.
    expect(html).not.toContain(adminToken);
    expect(html).not.toContain("receiver.example");
  });

  it("reports every endpoint's health: attempts and 2xx answers within the window, null rate without attempts", async () => {
    const endpoint = (
      await call("POST", "/endpoints", { url: "https://health.example/hook", token: "tok-h" })
    ).body.endpoint;
    expect((await call("POST", "/plants", { name: "Health check fern" })).status).toBe(201);
    expect((await call("POST", "/plants", { name: "Health check palm" })).status).toBe(201);
    const mine = (await outbox.claimDue({ workerId: "health-test", limit: 100, leaseMs: 60_000 })).filter(
      (delivery) => delivery.endpointId === endpoint.id,
    );
    expect(mine).toHaveLength(2);
    await outbox.recordAttempts(
      [500, 204].map((status, index) => ({
        deliveryId: mine[index]?.id ?? 0,
        workerId: "health-test",
        result: { startedAt: new Date(), durationMs: 5, status, error: null, responseBody: "" },
      })),
      { policy: createRetryPolicy({ schedule: "0", jitter: 0 }) },
    );
    const health = await call("GET", "/endpoint-health");
    expectDocumented("get", "/endpoint-health", health.status, health.body);
    const entry = health.body.endpoints.find(
      (item: { endpointId: number }) => item.endpointId === endpoint.id,
    );
    expect(entry).toMatchObject({ status: "active", attempts: 2, succeeded: 1, successRate: 0.5 });
    expect(Date.parse(health.body.until) - Date.parse(health.body.since)).toBe(3_600_000);
    const idle = health.body.endpoints.find((item: { attempts: number }) => item.attempts === 0);
    expect(idle).toMatchObject({ successRate: null, lastAttemptAt: null });
    const week = await call("GET", "/endpoint-health?windowMinutes=10080");
    expect(Date.parse(week.body.until) - Date.parse(week.body.since)).toBe(10_080 * 60_000);
    for (const query of ["windowMinutes=0", "windowMinutes=10081", "window=60"]) {
      const bad = await call("GET", `/endpoint-health?${query}`);
      expect(bad.status, query).toBe(400);
      expectDocumented("get", "/endpoint-health", bad.status, bad.body);
    }
    const anonymous = await call("GET", "/endpoint-health", undefined, "");
    expect(anonymous.status).toBe(401);
    expectDocumented("get", "/endpoint-health", anonymous.status, anonymous.body);
  });

  it("rotates an endpoint's secret: a generated one, shown once, added to the current ones (at most 10)", async () => {
    const first = generateWebhookSecret();
    const endpoint = (
      await call("POST", "/endpoints", { url: "https://rotate.example/hook", token: "tok-r", secret: first })
    ).body.endpoint;
    const rotated = await call("POST", `/endpoints/${endpoint.id}/rotate-secret`);
    expectDocumented("post", "/endpoints/{id}/rotate-secret", rotated.status, rotated.body);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(first);
    expect(rotated.body.endpoint.secretCount).toBe(2);
    expect((await outbox.getEndpoint(endpoint.id))?.secrets).toEqual([first, rotated.body.secret]);
    expect(JSON.stringify((await call("GET", "/endpoints")).body)).not.toContain(rotated.body.secret);
    for (let count = 3; count <= 10; count++)
      expect((await call("POST", `/endpoints/${endpoint.id}/rotate-secret`)).body.endpoint.secretCount).toBe(
        count,
      );
    const full = await call("POST", `/endpoints/${endpoint.id}/rotate-secret`);
    expect(full.status).toBe(409);
    expectDocumented("post", "/endpoints/{id}/rotate-secret", full.status, full.body);
    expect(full.body.message).toMatch(/PATCH/);
    expect((await outbox.getEndpoint(endpoint.id))?.secrets).toHaveLength(10);
    const missing = await call("POST", "/endpoints/999/rotate-secret");
    expect(missing.status).toBe(404);
    expectDocumented("post", "/endpoints/{id}/rotate-secret", missing.status, missing.body);
    const anonymous = await call("POST", `/endpoints/${endpoint.id}/rotate-secret`, undefined, "");
    expect(anonymous.status).toBe(401);
    expectDocumented("post", "/endpoints/{id}/rotate-secret", anonymous.status, anonymous.body);
  });

  it("sets, changes and lifts an endpoint's rate limit on POST and PATCH, refusing what it cannot keep", async () => {
    const added = await call("POST", "/endpoints", {
      url: "https://limited.example/hook",
      token: "tok-r",
      rateLimit: 50,
    });
    expectDocumented("post", "/endpoints", added.status, added.body);
    expect(added.body.endpoint.rateLimit).toBe(50);
    const { id } = added.body.endpoint;
    const changed = await call("PATCH", `/endpoints/${id}`, { rateLimit: 5 });
    expectDocumented("patch", "/endpoints/{id}", changed.status, changed.body);
    expect(changed.body.endpoint.rateLimit).toBe(5);
    expect((await call("PATCH", `/endpoints/${id}`, { rateLimit: null })).body.endpoint.rateLimit).toBeNull();
    for (const rateLimit of [0, 2.5, 10_001, "50"]) {
      const refused = await call("PATCH", `/endpoints/${id}`, { rateLimit });
      expect(refused.status, String(rateLimit)).toBe(400);
      expectDocumented("patch", "/endpoints/{id}", refused.status, refused.body);
      expect(refused.body.message).toContain("rateLimit");
    }
    expect((await call("GET", `/endpoints/${id}`)).body.endpoint.rateLimit).toBeNull();
    await call("DELETE", `/endpoints/${id}`);
  });

  it("subscribes endpoints to the store's event types on POST and PATCH, shows them, and filters deliveries by type", async () => {
    const added = await call("POST", "/endpoints", {
      url: "https://subscribed.example/hook",
      token: "tok-s",
      eventTypes: ["newPlant", "newPlant"],
    });
    expectDocumented("post", "/endpoints", added.status, added.body);
    const { id } = added.body.endpoint;
    expect(added.body.endpoint.eventTypes).toEqual(["newPlant"]);
    const shown = await call("GET", `/endpoints/${id}`);
    expectDocumented("get", "/endpoints/{id}", shown.status, shown.body);
    expect(shown.body.endpoint).toEqual(added.body.endpoint);
    const listed = (await call("GET", "/endpoints")).body.endpoints as Array<{
      id: number;
      eventTypes: unknown;
    }>;
    expect(listed.find((endpoint) => endpoint.id === id)?.eventTypes).toEqual(["newPlant"]);
    // Without a list, every event type: what every endpoint had before subscriptions.
    expect(listed.find((endpoint) => endpoint.id !== id)?.eventTypes).toBeNull();

    // A type or prefix the store's contract does not have would receive nothing: refused, naming its place.
    for (const [eventTypes, message] of [
      [
        ["orderCreated"],
        "eventTypes.0: matches none of this API's event types (newPlant, endpoint.failing, endpoint.disabled, endpoint.recovered, delivery.failed; a trailing * matches a prefix)",
      ],
      [["newPlant", "plant*"], "eventTypes.1: matches none of this API's event types"],
      [[], "eventTypes: list at least one event type, or null for every one"],
      ["newPlant", "eventTypes: Invalid input: expected array, received string"],
    ] as const) {
      const refused = await call("POST", "/endpoints", {
        url: "https://x.example/hook",
        token: "t",
        eventTypes,
      });
      expect(refused.status, JSON.stringify(eventTypes)).toBe(400);
      expectDocumented("post", "/endpoints", refused.status, refused.body);
      expect(refused.body.message).toContain(`Invalid endpoint: ${message}`);
      const patched = await call("PATCH", `/endpoints/${id}`, { eventTypes });
      expect(patched.status, JSON.stringify(eventTypes)).toBe(400);
      expectDocumented("patch", "/endpoints/{id}", patched.status, patched.body);
      expect(patched.body.message).toContain(`Invalid endpoint update: ${message}`);
    }
    expect((await outbox.getEndpoint(id))?.eventTypes).toEqual(["newPlant"]);

    for (const eventTypes of [["new*"], null, ["*"]]) {
      const patched = await call("PATCH", `/endpoints/${id}`, { eventTypes });
      expectDocumented("patch", "/endpoints/{id}", patched.status, patched.body);
      expect(patched.body.endpoint.eventTypes).toEqual(eventTypes);
      expect((await outbox.getEndpoint(id))?.eventTypes).toEqual(eventTypes);
    }
    for (const [path, status] of [
      ["/endpoints/999", 404],
      ["/endpoints/abc", 400],
    ] as const) {
      const answer = await call("GET", path);
      expect(answer.status, path).toBe(status);
      expectDocumented("get", "/endpoints/{id}", answer.status, answer.body);
    }

    const ofType = await call("GET", "/deliveries?eventType=newPlant&limit=1000");
    expectDocumented("get", "/deliveries", ofType.status, ofType.body);
    const all = await call("GET", "/deliveries?limit=1000");
    expect(ofType.body.deliveries.length).toBeGreaterThan(0);
    expect(ofType.body.deliveries).toEqual(all.body.deliveries);
    expect(new Set(all.body.deliveries.map((delivery: { eventType: string }) => delivery.eventType))).toEqual(
      new Set(["newPlant"]),
    );
    const unknown = await call("GET", "/deliveries?eventType=orderCreated");
    expect(unknown.status).toBe(400);
    expectDocumented("get", "/deliveries", unknown.status, unknown.body);
    expect(unknown.body.message).toBe(
      "Invalid query: eventType: must be one of this API's event types (newPlant, endpoint.failing, endpoint.disabled, endpoint.recovered, delivery.failed)",
    );
    expect((await call("DELETE", `/endpoints/${id}`)).status).toBe(204);
  });

  it("keeps the documented examples valid against their own schemas", () => {
    for (const [path, item] of Object.entries<
      Record<string, { responses: Record<string, { content?: Record<string, { example?: unknown }> }> }>
    >(spec.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const example = response.content?.["application/json"]?.example;
          if (example !== undefined) expectDocumented(method, path, Number(status), example);
        }
      }
    }
  });
});

describe("the admin API's cap on endpoints", () => {
  it("refuses an endpoint beyond the operator's cap with 409 and the Error body, until one is removed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "plant-store-cap-"));
    const store = await openStore(join(dir, "store.db"));
    const adminToken = "admin-token-0123456789";
    const server = createAdminApp({
      outbox: store.outbox,
      plants: store.plants,
      adminToken,
      registry: new Registry(),
      endpointCaps: { operator: { endpoints: 2 } },
    }).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const headers = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" };
    const add = (n: number) =>
      fetch(`${base}/endpoints`, {
        method: "POST",
        headers,
        body: JSON.stringify({ url: `https://receiver${n}.example/plant/webhook`, token: "tok" }),
      });
    try {
      expect((await add(1)).status).toBe(201);
      expect((await add(2)).status).toBe(201);
      const refused = await add(3);
      const body = (await refused.json()) as { message: string };
      expect(refused.status).toBe(409);
      expectDocumented("post", "/endpoints", refused.status, body);
      expect(body.message).toBe(
        "The operator already has 2 endpoints, the most the operator may have: remove one first",
      );
      expect(await store.outbox.listEndpoints()).toHaveLength(2);
      expect((await fetch(`${base}/endpoints/1`, { method: "DELETE", headers })).status).toBe(204);
      expect((await add(3)).status).toBe(201);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
