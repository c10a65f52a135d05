import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliver, type RunningApp, startApp } from "../fixtures/start-app.js";

const token = "tok_read_access_0c4d";
// With characters a cookie value cannot hold as they are (a comma would split it into two tokens).
const readToken = 'read;access"token"\\6e2a';
const secret = generateWebhookSecret();
const READ_PATHS = ["/", "/plants?limit=1000", "/events", "/metrics", "/deliveries"];

describe("the read side (/, /plants, /events, /metrics) of a receiver process", () => {
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

  it("answers 401 without the read token, with a wrong one, and with the webhook's own token", async () => {
    for (const path of READ_PATHS) {
      for (const headers of [
        {},
        { authorization: "Bearer not-the-read-token" },
        { authorization: `Bearer ${token}` },
        { authorization: `Basic ${Buffer.from(`x:${readToken}`).toString("base64")}` },
        { authorization: `Bearer ${readToken} junk` },
        { cookie: "plant_receiver_read=wrong" },
        { cookie: `plant_receiver_read=${readToken}` },
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
    for (const path of ["/", "/plants?limit=1000", "/metrics", "/deliveries"]) {
      const response = await app.read(path);
      expect(response.status, path).toBe(200);
    }
    expect(await (await app.read("/plants?limit=1")).json()).toMatchObject({
      plants: [{ name: "Monstera deliciosa" }],
    });
    const events = await app.read("/events");
    expect(events.status).toBe(200);
    expect(events.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await events.body?.cancel();
  });

  it("turns the one-click link into an HttpOnly cookie and a redirect that drops the token from the URL", async () => {
    const link = await fetch(app.livePageUrl, { redirect: "manual" });
    expect(link.status).toBe(303);
    expect(link.headers.get("location")).toBe("/");
    const cookie = link.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^plant_receiver_read=/);
    expect(cookie.toLowerCase()).toContain("httponly");
    expect(cookie.toLowerCase()).toContain("samesite=lax");
    const pair = cookie.split(";")[0] ?? "";
    for (const path of ["/", "/plants?limit=1", "/metrics"]) {
      expect((await fetch(`${app.url}${path}`, { headers: { cookie: pair } })).status, path).toBe(200);
    }
    // A wrong token in the link sets nothing.
    const wrong = await fetch(`${app.url}/?read_token=nope`, { redirect: "manual" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
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
      for (const path of READ_PATHS) {
        const response = await fetch(`${app.url}${path}`, { headers: { authorization: "Bearer anything" } });
        expect(response.status, path).toBe(403);
        expect(((await response.json()) as { message: string }).message).toContain("--read-token");
      }
      expect(app.lines.some((line) => line.includes("no --read-token"))).toBe(true);
    } finally {
      await app.stop();
    }
  });
});
