import { request } from "node:http";
import { generateWebhookSecret, type NewPlant } from "@plant-store/types";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { ReceiverLogger } from "../../src/index.js";
import { type RunningReceiver, send, startReceiver } from "../fixtures/start-receiver.js";

const oldSecret = generateWebhookSecret();
const newSecret = generateWebhookSecret();
const tokens = ["old-token", "new-token"];

describe("createPlantWebhookRouter over real HTTP", () => {
  let receiver: RunningReceiver;
  const received: NewPlant[] = [];
  const logged: string[] = [];
  let failNext = 0;
  /** When set, the handler runs until this many requests are in flight at once. */
  let holdUntilInFlight = 0;
  const logger: ReceiverLogger = {
    info: (o, m) => logged.push(JSON.stringify([o, m])),
    warn: (o, m) => logged.push(JSON.stringify([o, m])),
    error: (o, m) => logged.push(JSON.stringify([o, m, String((o as { err?: unknown }).err)])),
  };

  beforeAll(async () => {
    receiver = await startReceiver({
      tokens,
      secrets: [oldSecret, newSecret],
      logger,
      onNewPlant: async (plant) => {
        if (holdUntilInFlight > 0)
          await vi.waitFor(() => expect(receiver.inFlight()).toBeGreaterThanOrEqual(holdUntilInFlight), {
            timeout: 10_000,
          });
        if (failNext > 0) {
          failNext--;
          throw new Error("database unavailable: password=hunter2");
        }
        received.push(plant);
      },
    });
  });
  afterAll(() => receiver.close());
  beforeEach(() => {
    received.length = 0;
  });

  it("answers 200 received for a valid delivery and hands the typed plant to the handler", async () => {
    const response = await send(receiver.url, { token: "old-token", secret: oldSecret });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true, duplicate: false });
    expect(received).toEqual([{ id: 1, name: "Monstera deliciosa", tag: "tropical" }]);
  });

  it("accepts every token and every secret in rotation", async () => {
    for (const token of tokens) {
      for (const secret of [oldSecret, newSecret]) {
        expect((await send(receiver.url, { token, secret })).status).toBe(200);
      }
    }
    expect(received).toHaveLength(4);
  });

  it("answers 405 with Allow: POST for other methods", async () => {
    for (const method of ["GET", "PUT", "DELETE"]) {
      const response = await fetch(receiver.url, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      expect(await response.json()).toEqual({
        error: 405,
        message: `Method ${method} not allowed; use POST`,
      });
    }
  });

  it("answers 401 with a Bearer challenge for a missing, wrongly-schemed or wrong token", async () => {
    for (const authorization of [undefined, "Basic b2xkLXRva2Vu", "Bearer wrong"]) {
      const response = await fetch(receiver.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
        body: "{}",
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="plant-webhook"/);
      expect(await response.json()).toEqual({ error: 401, message: "Missing or invalid bearer token" });
    }
  });

  it("checks the token before the content type", async () => {
    const response = await send(receiver.url, {
      token: "wrong",
      secret: oldSecret,
      contentType: "text/plain",
    });
    expect(response.status).toBe(401);
  });

  it("keeps the contract's order: content type, then size, then signature, then JSON", async () => {
    const big = "x".repeat(1_048_577);
    const badSignature = { token: "old-token", secret: generateWebhookSecret() };
    expect((await send(receiver.url, { ...badSignature, body: big, contentType: "text/plain" })).status).toBe(
      415,
    );
    expect((await send(receiver.url, { ...badSignature, body: big })).status).toBe(413);
    expect((await send(receiver.url, { ...badSignature, body: "{not json" })).status).toBe(401);
    expect(
      (await send(receiver.url, { token: "old-token", secret: oldSecret, body: "{not json" })).status,
    ).toBe(400);
  });

  it("answers 415 for a body that is not application/json, and accepts parameters", async () => {
    const bad = await send(receiver.url, {
      token: "new-token",
      secret: oldSecret,
      contentType: "text/plain",
    });
    expect(bad.status).toBe(415);
    expect(await bad.json()).toEqual({ error: 415, message: "Content-Type must be application/json" });
    const good = await send(receiver.url, {
      token: "new-token",
      secret: oldSecret,
      contentType: "Application/JSON; charset=utf-8",
    });
    expect(good.status).toBe(200);
  });

  it("answers 413 for a body over 1 MiB without calling the handler", async () => {
    const body = JSON.stringify({ id: 1, name: "x".repeat(1_048_576) });
    const response = await send(receiver.url, { token: "old-token", secret: oldSecret, body });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: 413,
      message: "Request body is larger than 1048576 bytes",
    });
    expect(received).toEqual([]);
  });

  it("answers 413 while streaming a chunked body that grows past the limit", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        receiver.url,
        {
          method: "POST",
          headers: { authorization: "Bearer old-token", "content-type": "application/json" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      // No Content-Length: the limit can only be enforced while reading.
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < 2 * 1_048_576) {
          sent += chunk.length;
          if (!req.write(chunk)) {
            req.once("drain", pump);
            return;
          }
        }
        req.end();
      };
      pump();
    });
    expect(status).toBe(413);
  });

  it("answers 401 for a missing signature header, a wrong signature and a body changed after signing", async () => {
    const body = JSON.stringify({ id: 2, name: "Ficus lyrata" });
    const unsigned = await fetch(receiver.url, {
      method: "POST",
      headers: { authorization: "Bearer old-token", "content-type": "application/json" },
      body,
    });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toEqual({ error: 401, message: "Missing webhook-id header" });
    const foreign = await send(receiver.url, { token: "old-token", secret: generateWebhookSecret(), body });
    expect(foreign.status).toBe(401);
    expect(await foreign.json()).toEqual({ error: 401, message: "No matching webhook signature" });
    expect(received).toEqual([]);
  });

  it("refuses replays: timestamps more than 5 minutes old or in the future", async () => {
    const old = await send(receiver.url, {
      token: "old-token",
      secret: oldSecret,
      at: new Date(Date.now() - 301_000),
    });
    const future = await send(receiver.url, {
      token: "old-token",
      secret: oldSecret,
      at: new Date(Date.now() + 400_000),
    });
    expect(old.status).toBe(401);
    expect(future.status).toBe(401);
    expect(((await old.json()) as { message: string }).message).toMatch(/too old/);
    expect(((await future.json()) as { message: string }).message).toMatch(/too new/);
    expect(received).toEqual([]);
  });

  it("answers 400 for invalid JSON and names every invalid field", async () => {
    const notJson = await send(receiver.url, { token: "old-token", secret: oldSecret, body: "{oops" });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toEqual({ error: 400, message: "Request body is not valid JSON" });
    const invalid = await send(receiver.url, {
      token: "old-token",
      secret: oldSecret,
      body: JSON.stringify({ id: 1.5, name: "", tag: 3 }),
    });
    expect(invalid.status).toBe(400);
    const { message } = (await invalid.json()) as { message: string };
    expect(message).toMatch(/^Invalid NewPlant: /);
    for (const field of ["id:", "name:", "tag:"]) expect(message).toContain(field);
  });

  it("acknowledges a repeated webhook-id as a duplicate without calling the handler again", async () => {
    const id = `msg_${crypto.randomUUID()}`;
    const first = await send(receiver.url, { token: "old-token", secret: oldSecret, id });
    // A retry is re-signed with a fresh timestamp and possibly a rotated secret.
    const second = await send(receiver.url, { token: "new-token", secret: newSecret, id });
    expect(await first.json()).toEqual({ received: true, duplicate: false });
    expect(await second.json()).toEqual({ received: true, duplicate: true });
    expect(received).toHaveLength(1);
  });

  it("runs the handler once when copies of one id arrive at the same moment", async () => {
    const id = `msg_${crypto.randomUUID()}`;
    // The first copy's handler runs until all eight are in, so each other copy finds it running.
    holdUntilInFlight = 8;
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => send(receiver.url, { token: "old-token", secret: oldSecret, id })),
    ).finally(() => {
      holdUntilInFlight = 0;
    });
    const bodies = (await Promise.all(responses.map((r) => r.json()))) as { duplicate: boolean }[];
    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(bodies.filter((b) => b.duplicate === false)).toHaveLength(1);
    expect(received).toHaveLength(1);
  });

  it("answers 500 when the handler throws, logs it without leaking it, and runs a redelivery", async () => {
    const id = `msg_${crypto.randomUUID()}`;
    failNext = 1;
    const failed = await send(receiver.url, { token: "old-token", secret: oldSecret, id });
    expect(failed.status).toBe(500);
    const text = await failed.text();
    expect(JSON.parse(text)).toEqual({ error: 500, message: "Internal error" });
    expect(text).not.toContain("hunter2");
    expect(logged.some((line) => line.includes("database unavailable") && line.includes(id))).toBe(true);
    const retried = await send(receiver.url, { token: "old-token", secret: oldSecret, id });
    expect(await retried.json()).toEqual({ received: true, duplicate: false });
    expect(received).toHaveLength(1);
  });

  it("never logs tokens or signatures", () => {
    const all = logged.join("\n");
    expect(all.length).toBeGreaterThan(0);
    for (const secret of [...tokens, oldSecret, newSecret, "v1,"]) expect(all).not.toContain(secret);
  });
});
