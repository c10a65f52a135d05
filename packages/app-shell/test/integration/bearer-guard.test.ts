import type { Server } from "node:http";
import { connect } from "node:net";
import { Router } from "@koa/router";
import Koa from "koa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addSessionRoutes } from "../../src/add-session-routes.js";
import { createAuthThrottle } from "../../src/create-auth-throttle.js";
import { createBearerGuard } from "../../src/create-bearer-guard.js";
import { createBrowserSessions } from "../../src/create-browser-sessions.js";
import { createErrorBoundary } from "../../src/create-error-boundary.js";
import { mountRouter } from "../../src/mount-router.js";

const TOKEN = "the-long-lived-token-0123";
const BURST = 5;
let server: Server;
let base: string;
const counted: string[] = [];
const logged: Array<{ message: string; object: Record<string, unknown> }> = [];

beforeAll(async () => {
  const app = new Koa();
  app.silent = true;
  const logger = {
    warn: (object: object, message: string) => logged.push({ message, object: { ...object } }),
    error: (object: object, message: string) => logged.push({ message, object: { ...object } }),
  };
  app.use(createErrorBoundary({ logger }));
  const sessions = createBrowserSessions({ tokens: [TOKEN] });
  const throttle = createAuthThrottle({
    credential: "test token",
    burst: BURST,
    refillMs: 60_000,
    logger,
    count: (outcome) => counted.push(outcome),
  });
  const acceptsToken = (candidate: string) => candidate === TOKEN;
  const guard = createBearerGuard({
    acceptsToken,
    sessions,
    throttle,
    realm: "test",
    message: "Token required",
  });
  const router = new Router();
  router.get("/secret", guard, (ctx) => {
    ctx.body = { auth: ctx.state.auth };
  });
  addSessionRoutes(router, { sessions, throttle, acceptsToken, credential: "test token", guard });
  mountRouter(app, router);
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as { port: number };
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** A request from `from` (any of 127/8 is this host), on a connection of its own. */
function request(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; from?: string },
) {
  const { port } = new URL(base);
  return new Promise<{ status: number; headers: Record<string, string>; body: string }>((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: Number(port), localAddress: init.from ?? "127.0.0.1" });
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const [head = "", body = ""] = text.split("\r\n\r\n");
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(":")).toLowerCase(),
          line.slice(line.indexOf(":") + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body });
    });
    const body = init.body ?? "";
    const headers = {
      Host: "127.0.0.1",
      Connection: "close",
      "Content-Length": String(Buffer.byteLength(body)),
      ...init.headers,
    };
    socket.write(
      `${init.method ?? "GET"} ${path} HTTP/1.1\r\n${Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}`)
        .join("\r\n")}\r\n\r\n${body}`,
    );
  });
}
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const json = { "Content-Type": "application/json" };

describe("createBearerGuard", () => {
  it("lets the long-lived token in, and refuses a missing one with 401 without counting it", async () => {
    expect(await request("/secret", { headers: bearer(TOKEN), from: "127.0.3.1" })).toMatchObject({
      status: 200,
      body: '{"auth":"token"}',
    });
    const missing = await request("/secret", { from: "127.0.3.1" });
    expect(missing.status).toBe(401);
    expect(missing.headers["www-authenticate"]).toBe('Bearer realm="test"');
    expect(missing.headers.connection).toBe("close");
    expect(JSON.parse(missing.body)).toEqual({ error: 401, message: "Token required" });
    expect(counted).toEqual([]);
  });

  it("after a client's burst of wrong tokens answers it 429 with Retry-After, even with the right token, and no one else", async () => {
    for (let attempt = 0; attempt < BURST; attempt++) {
      const wrong = await request("/secret", { headers: bearer(`guess-${attempt}`), from: "127.0.3.2" });
      expect(wrong.status).toBe(401);
    }
    for (const headers of [bearer("guess-again"), bearer(TOKEN), {}]) {
      const slowed = await request("/secret", { headers, from: "127.0.3.2" });
      expect(slowed.status).toBe(429);
      expect(Number(slowed.headers["retry-after"])).toBeGreaterThan(0);
      expect(JSON.parse(slowed.body)).toMatchObject({ error: 429 });
    }
    expect(await request("/secret", { headers: bearer(TOKEN), from: "127.0.3.3" })).toMatchObject({
      status: 200,
    });
    expect(counted.filter((outcome) => outcome === "wrong")).toHaveLength(BURST);
    expect(counted.filter((outcome) => outcome === "throttled")).toHaveLength(3);
    // Sampled: the first wrong token and the first 429, not a line per request; the error boundary adds none.
    expect(logged.map((line) => line.message)).toEqual([
      "authentication failed",
      "authentication throttled (429)",
    ]);
    expect(JSON.stringify(logged)).not.toContain("guess-");
  });
});

describe("addSessionRoutes", () => {
  it("issues a single-use code for the token, exchanges it once for a session that lets its holder in, and ends it", async () => {
    const from = "127.0.4.1";
    const issued = await request("/login-codes", { method: "POST", headers: bearer(TOKEN), from });
    expect(issued.status).toBe(201);
    const { code, expiresAt } = JSON.parse(issued.body) as { code: string; expiresAt: string };
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
    const exchange = () =>
      request("/sessions", { method: "POST", headers: json, body: JSON.stringify({ code }), from });
    const opened = await exchange();
    expect(opened.status).toBe(201);
    expect(opened.headers["cache-control"]).toBe("no-store");
    const { session } = JSON.parse(opened.body) as { session: string };
    expect(session).not.toBe(TOKEN);
    expect((await exchange()).status).toBe(401);
    expect(await request("/secret", { headers: bearer(session), from })).toMatchObject({
      status: 200,
      body: '{"auth":"session"}',
    });
    // A session issues no codes (it would outlive itself through them), and only a session ends itself.
    expect((await request("/login-codes", { method: "POST", headers: bearer(session), from })).status).toBe(
      403,
    );
    expect(
      (await request("/sessions/current", { method: "DELETE", headers: bearer(TOKEN), from })).status,
    ).toBe(403);
    expect(
      (await request("/sessions/current", { method: "DELETE", headers: bearer(session), from })).status,
    ).toBe(204);
    expect((await request("/secret", { headers: bearer(session), from })).status).toBe(401);
  });

  it("opens a session for the token posted in the body, and refuses a wrong one, a bad body and other media types", async () => {
    const from = "127.0.4.2";
    const post = (body: string, headers: Record<string, string> = json) =>
      request("/sessions", { method: "POST", headers, body, from });
    const opened = await post(JSON.stringify({ token: TOKEN }));
    expect(opened.status).toBe(201);
    expect(JSON.parse(opened.body).session).toMatch(/^[0-9a-z]+\.[\w-]{22}\.[\w-]{43}$/);
    expect((await post(JSON.stringify({ token: "wrong" }))).status).toBe(401);
    expect((await post(JSON.stringify({ token: TOKEN, code: "x" }))).status).toBe(401);
    expect((await post("[]")).status).toBe(400);
    expect(
      (await post(`token=${TOKEN}`, { "Content-Type": "application/x-www-form-urlencoded" })).status,
    ).toBe(415);
    expect((await post(JSON.stringify({ token: "x".repeat(5000) }))).status).toBe(413);
  });

  it("counts wrong codes against the client like wrong tokens: past the burst, 429", async () => {
    const from = "127.0.4.3";
    const statuses: number[] = [];
    for (let attempt = 0; attempt <= BURST; attempt++) {
      const answer = await request("/sessions", {
        method: "POST",
        headers: json,
        body: JSON.stringify({ code: `guessed-${attempt}` }),
        from,
      });
      statuses.push(answer.status);
    }
    expect(statuses).toEqual([...Array(BURST).fill(401), 429]);
  });
});
