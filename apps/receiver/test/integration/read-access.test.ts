import { request } from "node:http";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliver, type RunningApp, startApp } from "../fixtures/start-app.js";

const token = "tok_read_access_0c4d";
// With characters a cookie value could not hold as they are (it used to be one).
const readToken = 'read;access"token"\\6e2a';
const secret = generateWebhookSecret();
const READ_PATHS = ["/plants?limit=1000", "/events", "/metrics", "/deliveries"];

/** GET `path` from `localAddress` (any of 127/8 is this host): one client among several. */
function getFrom(url: string, localAddress: string, path: string, authorization: string) {
  const { port } = new URL(url);
  return new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path, localAddress, headers: { authorization } },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("the read side (/, /plants, /deliveries, /events, /metrics) of a receiver process", () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp([
      "--token",
      token,
      "--secret",
      secret,
      "--read-token",
      readToken,
      "--db",
      ":memory:",
    ]);
    expect((await deliver(app.url, { token, secret })).status).toBe(200);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("answers 401 without the read token, with a wrong one, the webhook's own token or the old cookie", async () => {
    for (const path of READ_PATHS) {
      for (const headers of [
        {},
        { authorization: "Bearer not-the-read-token" },
        { authorization: `Bearer ${token}` },
        { authorization: `Basic ${Buffer.from(`x:${readToken}`).toString("base64")}` },
        { authorization: `Bearer ${readToken} junk` },
        // The cookie the link used to set: the read token itself, base64url. No cookie opens anything now.
        { cookie: `plant_receiver_read=${Buffer.from(readToken).toString("base64url")}` },
      ]) {
        const response = await fetch(`${app.url}${path}`, { headers, redirect: "manual" });
        expect(response.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(response.headers.get("www-authenticate")).toMatch(/^Bearer /);
        const body = (await response.json()) as { error: number; message: string };
        expect(body.error).toBe(401);
        // Tells how to get in, and shows nothing of what is stored or counted.
        expect(body.message).toContain("read token");
        expect(JSON.stringify(body)).not.toContain("Monstera");
        expect(JSON.stringify(body)).not.toContain(readToken);
      }
    }
  });

  it("serves each path with Authorization: Bearer <read token>", async () => {
    for (const path of ["/plants?limit=1000", "/metrics", "/deliveries"]) {
      const response = await app.read(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
    expect(await (await app.read("/plants?limit=1")).json()).toMatchObject({
      plants: [{ name: "Monstera deliciosa" }],
    });
    const events = await app.read("/events");
    expect(events.status).toBe(200);
    expect(events.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await events.body?.cancel();
  });

  it("serves the page itself to anyone, with a CSP, no framing, nosniff and no referrer, and no cookie", async () => {
    // The old one-click link: its token is no longer looked at (and no cookie is set).
    for (const path of ["/", `/?read_token=${encodeURIComponent(readToken)}`]) {
      const page = await fetch(`${app.url}${path}`, { redirect: "manual" });
      expect(page.status, path).toBe(200);
      expect(page.headers.get("set-cookie")).toBeNull();
      expect(page.headers.get("content-security-policy")).toMatch(
        /^default-src 'none'; script-src 'sha256-[\w+/=]+'; style-src 'sha256-[\w+/=]+'; connect-src 'self';.* frame-ancestors 'none'$/,
      );
      expect(page.headers.get("x-frame-options")).toBe("DENY");
      expect(page.headers.get("x-content-type-options")).toBe("nosniff");
      expect(page.headers.get("referrer-policy")).toBe("no-referrer");
      expect(await page.text()).not.toContain("Monstera");
    }
  });

  it("signs a page in with a single-use code or the read token, for a session that is neither", async () => {
    const link = await app.signInLink();
    const code = new URL(link).hash.slice("#code=".length);
    const exchange = (credential: unknown) =>
      fetch(`${app.url}/sessions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(credential),
      });
    const opened = await exchange({ code });
    expect(opened.status).toBe(201);
    expect(opened.headers.get("set-cookie")).toBeNull();
    const { session } = (await opened.json()) as { session: string };
    expect(session).not.toContain(readToken);
    expect((await exchange({ code })).status).toBe(401);
    const read = await fetch(`${app.url}/plants?limit=1`, {
      headers: { authorization: `Bearer ${session}` },
    });
    expect(read.status).toBe(200);
    expect((await exchange({ token: readToken })).status).toBe(201);
    expect((await exchange({ token: "wrong-read-token-0123" })).status).toBe(401);
  });

  it("slows down a client guessing the read token (429 after 20 wrong ones) and logs it sampled", async () => {
    const statuses: number[] = [];
    for (let guess = 0; guess < 30; guess++)
      statuses.push((await getFrom(app.url, "127.0.6.1", "/plants", `Bearer guess-${guess}`)).status);
    // Before, 12-14 thousand guesses a second were all answered 401, none of them logged.
    expect(statuses).toEqual([...Array(20).fill(401), ...Array(10).fill(429)]);
    const right = await getFrom(app.url, "127.0.6.1", "/plants", `Bearer ${readToken}`);
    expect(right.status).toBe(429);
    expect(Number(right.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await getFrom(app.url, "127.0.6.2", "/plants", `Bearer ${readToken}`)).status).toBe(200);
    const metrics = await (await app.read("/metrics")).text();
    expect(metrics).toMatch(/plant_receiver_read_auth_refusals_total\{outcome="throttled"\} 11/);
    const failures = app.lines.filter((line) => line.includes('"authentication failed'));
    // The first of the log window as it came (earlier tests' wrong tokens may have opened it), the rest counted.
    expect(failures.length).toBeGreaterThanOrEqual(1);
    expect(failures.length).toBeLessThanOrEqual(2);
    expect(app.output()).not.toContain("guess-");
  });

  it("keeps /healthz and the webhook open: the store and load balancers need them", async () => {
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
    expect((await deliver(app.url, { token, secret })).status).toBe(200);
  });
});

describe("a receiver process started without --read-token", () => {
  it("answers 403 on the read side, says how to turn it on, and warns at start-up", async () => {
    // startApp adds a read token unless given one; an empty env list is none.
    const app = await startApp([
      "--token",
      token,
      "--secret",
      secret,
      "--db",
      ":memory:",
      "--read-token",
      "",
    ]);
    try {
      for (const [method, path] of [
        ...["/", ...READ_PATHS].map((path) => ["GET", path] as const),
        ["POST", "/sessions"] as const,
        ["POST", "/login-codes"] as const,
      ]) {
        const response = await fetch(`${app.url}${path}`, {
          method,
          headers: { authorization: "Bearer anything", "content-type": "application/json" },
          ...(method === "POST" ? { body: JSON.stringify({ token: "anything" }) } : {}),
        });
        expect(response.status, path).toBe(403);
        expect(((await response.json()) as { message: string }).message).toContain("--read-token");
      }
      expect(app.lines.some((line) => line.includes("no --read-token"))).toBe(true);
    } finally {
      await app.stop();
    }
  });
});
