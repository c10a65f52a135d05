import { createHmac } from "node:crypto";
import { startTestReceiver, type TestReceiver } from "@plant-store/testing";
import { generateWebhookKeyPair, generateWebhookSecret, WebhookVerificationSchema } from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { createDeliveryClient, type DeliveryClient } from "../../src/delivery/create-delivery-client.js";
import { createSsrfGuard } from "../../src/delivery/create-ssrf-guard.js";
import { type EndpointVerification, verifyEndpoint } from "../../src/delivery/verify-endpoint.js";

const TOKEN = "verify-token";

/** The challenge the request carried, as a receiver reads it. */
function challengeOf(body: string): string {
  return WebhookVerificationSchema.parse(JSON.parse(body)).challenge;
}

/**
 * A correct answer's body, computed here with node:crypto alone (not the core the sender checks
 * with): `v1,` base64 HMAC-SHA256 of `webhook.verification.<webhook-id>.<challenge>` per whsec_ secret.
 */
function answerTo(request: { body: string; headers: Record<string, unknown> }, secrets: readonly string[]) {
  const challenge = challengeOf(request.body);
  const response = secrets
    .map((secret) => {
      const mac = createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64"))
        .update(`webhook.verification.${String(request.headers["webhook-id"])}.${challenge}`)
        .digest("base64");
      return `v1,${mac}`;
    })
    .join(" ");
  return JSON.stringify({ challenge, response });
}

describe("verifyEndpoint: the handshake against a real HTTP server on 127.0.0.1", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp(options: { timeoutMs?: number; allowPrivateTargets?: boolean } = {}) {
    const server: TestReceiver = await startTestReceiver();
    const client: DeliveryClient = createDeliveryClient();
    cleanups.push(() => server.close());
    cleanups.push(() => client.close());
    const secret = generateWebhookSecret();
    const endpoint = { url: `${server.url}/plant/webhook`, token: TOKEN, secrets: [secret] };
    const verify = (): Promise<EndpointVerification> =>
      verifyEndpoint(endpoint, {
        client,
        ssrfGuard: createSsrfGuard({ allowPrivateTargets: options.allowPrivateTargets ?? true }),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      });
    return { server, endpoint, secret, verify };
  }

  it("is verified by a server that answers the challenge with its secret's response, after one POST the reference library verifies", async () => {
    const { server, secret, verify } = await setUp();
    server.respond((request, response) => {
      response.writeHead(200, { "content-type": "application/json" }).end(answerTo(request, [secret]));
    });
    const result = await verify();
    expect(result).toMatchObject({ verified: true, status: 200 });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    if (request === undefined) throw new Error("no request");
    expect(request.path).toBe("/plant/webhook");
    expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["webhook-event-type"]).toBe("webhook.verification");
    expect(request.headers["webhook-id"]).toBe(result.webhookId);
    expect(result.webhookId).toMatch(/^msg_[0-9a-f-]{36}$/);
    // Standard Webhooks' own implementation accepts it: signed exactly like a delivery.
    const signed = new Webhook(secret).verify(request.body, {
      "webhook-id": String(request.headers["webhook-id"]),
      "webhook-timestamp": String(request.headers["webhook-timestamp"]),
      "webhook-signature": String(request.headers["webhook-signature"]),
    });
    expect(signed).toEqual({ type: "webhook.verification", challenge: challengeOf(request.body) });
    // 32 random bytes in base64url.
    expect(challengeOf(request.body)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  // Issue 37: 50 endpoints at one echo URL turned one plant into 50 signed POSTs there.
  it("is not verified by a server that echoes its request's body (it holds no secret)", async () => {
    const { server, verify } = await setUp();
    server.respond((request, response) => {
      response.writeHead(200, { "content-type": "application/json" }).end(request.body);
    });
    const result = await verify();
    expect(result).toMatchObject({ verified: false, reason: "invalid-answer", status: 200 });
  });

  it("is not verified by a server that echoes the body with the request's own signature as the response", async () => {
    const { server, verify } = await setUp();
    server.respond((request, response) => {
      const echoed = { ...JSON.parse(request.body), response: request.headers["webhook-signature"] };
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(echoed));
    });
    expect(await verify()).toMatchObject({ verified: false, reason: "wrong-response", status: 200 });
  });

  it("sends a fresh id and challenge every time", async () => {
    const { server, secret, verify } = await setUp();
    server.respond((request, response) => {
      response.writeHead(200).end(answerTo(request, [secret]));
    });
    const first = await verify();
    const second = await verify();
    expect([first.verified, second.verified]).toEqual([true, true]);
    expect(first.webhookId).not.toBe(second.webhookId);
    const [a, b] = server.requests.map((request) => challengeOf(request.body));
    expect(a).not.toBe(b);
  });

  it("signs with every secret of the endpoint, v1 and v1a, and takes a response made with any whsec_ one (rotation)", async () => {
    const server = await startTestReceiver();
    const client = createDeliveryClient();
    cleanups.push(
      () => server.close(),
      () => client.close(),
    );
    const { signingKey } = generateWebhookKeyPair();
    const secrets = [generateWebhookSecret(), generateWebhookSecret(), signingKey];
    // The receiver already holds only the newer secret, and an older one the endpoint dropped.
    const receiverSecrets = [generateWebhookSecret(), secrets[1] as string];
    server.respond((request, response) => {
      response.writeHead(200).end(answerTo(request, receiverSecrets));
    });
    const result = await verifyEndpoint(
      { url: server.url, token: TOKEN, secrets },
      { client, ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }) },
    );
    expect(result.verified).toBe(true);
    const signatures = String(server.requests[0]?.headers["webhook-signature"]).split(" ");
    expect(signatures.map((signature) => signature.split(",")[0])).toEqual(["v1", "v1", "v1a"]);
  });

  it("accepts any 2xx carrying the challenge and its response, and ignores other fields of the answer", async () => {
    const { server, secret, verify } = await setUp();
    server.respond((request, response) => {
      response.writeHead(201).end(JSON.stringify({ ok: true, ...JSON.parse(answerTo(request, [secret])) }));
    });
    expect(await verify()).toMatchObject({ verified: true, status: 201 });
  });

  it("is not verified by a response made with a secret the endpoint does not have", async () => {
    const { server, verify } = await setUp();
    server.respond((request, response) => {
      response.writeHead(200).end(answerTo(request, [generateWebhookSecret()]));
    });
    const result = await verify();
    expect(result).toMatchObject({ verified: false, reason: "wrong-response", status: 200 });
    expect(result.verified ? "" : result.message).toBe(
      "Answered 200 with a response none of the endpoint's secrets makes for this request",
    );
  });

  it("is not verified by a response made for another request (another webhook-id)", async () => {
    const { server, secret, verify } = await setUp();
    server.respond((request, response) => {
      const other = { ...request, headers: { ...request.headers, "webhook-id": "msg_other" } };
      response.writeHead(200).end(answerTo(other, [secret]));
    });
    expect(await verify()).toMatchObject({ verified: false, reason: "wrong-response" });
  });

  it("names a receiver that answers the challenge alone (contract 1.0.0's answer)", async () => {
    const { server, verify } = await setUp();
    server.respond((request, response) => {
      response.writeHead(200).end(JSON.stringify({ challenge: challengeOf(request.body) }));
    });
    const result = await verify();
    expect(result).toMatchObject({ verified: false, reason: "invalid-answer", status: 200 });
    expect(result.verified ? "" : result.message).toBe(
      'Answered 200 with the challenge but no "response" proving the signing secret (a receiver made for contract 1.0.0, or an echo)',
    );
  });

  it("sends nothing to an endpoint with only whsk_ keys: it has no shared secret to prove", async () => {
    const server = await startTestReceiver();
    const client = createDeliveryClient();
    cleanups.push(
      () => server.close(),
      () => client.close(),
    );
    // A key that is not one at all proves nothing either (the store's inputs refuse it before this).
    for (const secrets of [[generateWebhookKeyPair().signingKey], ["whsec_"]]) {
      const result = await verifyEndpoint(
        { url: server.url, token: TOKEN, secrets },
        { client, ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }) },
      );
      expect(result).toMatchObject({ verified: false, reason: "no-secret" });
      expect(result.verified ? "" : result.message).toContain("add one");
    }
    expect(server.requests).toEqual([]);
  });

  it.each([
    [
      "a wrong challenge",
      200,
      JSON.stringify({ challenge: "x".repeat(43), response: `v1,${"A".repeat(43)}=` }),
      "wrong-challenge",
      "another challenge",
    ],
    ["the usual delivery answer", 200, JSON.stringify({ received: true }), "invalid-answer", "without"],
    ["an empty body", 200, "", "invalid-answer", "not JSON"],
    ["text that is not JSON", 200, "ok", "invalid-answer", "not JSON"],
    [
      "a challenge that is not a string",
      200,
      JSON.stringify({ challenge: 42, response: "v1,x" }),
      "invalid-answer",
      "without",
    ],
    [
      "a response that is not a string",
      200,
      JSON.stringify({ challenge: "x".repeat(43), response: 42 }),
      "invalid-answer",
      "but no",
    ],
    ["a 300", 300, "", "redirect", "redirects are not followed"],
    ["a 400", 400, JSON.stringify({ error: 400, message: "Bad" }), "status", "not 2xx"],
    ["a 404", 404, JSON.stringify({ error: 404, message: "Not found" }), "status", "not 2xx"],
    ["a 500", 500, JSON.stringify({ error: 500, message: "Internal error" }), "status", "not 2xx"],
    [
      "a 401",
      401,
      JSON.stringify({ error: 401, message: "Missing or invalid bearer token" }),
      "status",
      "not 2xx",
    ],
  ] as const)("is not verified by %s (%i)", async (_name, status, answer, reason, says) => {
    const { server, verify } = await setUp();
    server.respond((_request, response) => {
      response.writeHead(status, { "content-type": "application/json" }).end(answer);
    });
    const result = await verify();
    expect(result).toMatchObject({ verified: false, reason, status });
    expect(result.verified ? "" : result.message).toContain(`Answered ${status}`);
    expect(result.verified ? "" : result.message).toContain(says);
  });

  it("is not verified by a 500 that carries a correct answer", async () => {
    const { server, secret, verify } = await setUp();
    server.respond((request, response) => {
      response.writeHead(500).end(answerTo(request, [secret]));
    });
    expect(await verify()).toMatchObject({ verified: false, reason: "status", status: 500 });
  });

  it("does not follow a redirect, even to a server that would answer", async () => {
    const { server, secret, verify } = await setUp();
    server.respond((request, response) => {
      if (request.path === "/elsewhere") {
        response.writeHead(200).end(answerTo(request, [secret]));
        return;
      }
      response.writeHead(307, { location: `${server.url}/elsewhere` }).end();
    });
    const result = await verify();
    expect(result).toMatchObject({ verified: false, reason: "redirect", status: 307 });
    expect(server.requests.map((request) => request.path)).toEqual(["/plant/webhook"]);
  });

  it("is not verified when no answer comes in time", async () => {
    const { server, verify } = await setUp({ timeoutMs: 200 });
    server.respond(() => new Promise<void>(() => {}));
    const result = await verify();
    expect(result).toMatchObject({ verified: false, reason: "no-answer", error: "ETIMEDOUT" });
    expect(result.verified ? "" : result.message).toBe("No answer (ETIMEDOUT)");
    expect(result).not.toHaveProperty("status");
    expect(server.requests).toHaveLength(1);
  });

  it("is not verified when nothing listens (connection refused)", async () => {
    const { server, verify } = await setUp();
    await server.close();
    expect(await verify()).toMatchObject({ verified: false, reason: "no-answer", error: "ECONNREFUSED" });
  });

  it("takes a slow name lookup's time out of the wait for the answer", async () => {
    const server = await startTestReceiver();
    const client = createDeliveryClient();
    cleanups.push(
      () => server.close(),
      () => client.close(),
    );
    // The answer comes after 100 ms, the lookup takes 150 of the 200 allowed: the 50 left run out first.
    server.respond((request, response) => {
      setTimeout(
        () => response.writeHead(200).end(JSON.stringify({ challenge: challengeOf(request.body) })),
        100,
      );
    });
    const slowLookup = createSsrfGuard({
      allowPrivateTargets: true,
      resolve: () =>
        new Promise((resolve) => setTimeout(() => resolve([{ address: "127.0.0.1", family: 4 }]), 150)),
    });
    const url = server.url.replace("127.0.0.1", "receiver.plant-store.invalid");
    const result = await verifyEndpoint(
      { url, token: TOKEN, secrets: [generateWebhookSecret()] },
      { client, ssrfGuard: slowLookup, timeoutMs: 200 },
    );
    expect(result).toMatchObject({ verified: false, reason: "no-answer", error: "ETIMEDOUT" });
  });

  it("gives the name lookup the handshake's time, not the guard's default", async () => {
    const client = createDeliveryClient();
    cleanups.push(() => client.close());
    const hanging = createSsrfGuard({ allowPrivateTargets: true, resolve: () => new Promise(() => {}) });
    const result = await verifyEndpoint(
      {
        url: "http://receiver.plant-store.invalid/plant/webhook",
        token: TOKEN,
        secrets: [generateWebhookSecret()],
      },
      { client, ssrfGuard: hanging, timeoutMs: 100 },
    );
    expect(result).toMatchObject({ verified: false, reason: "refused-target", error: "ERR_DNS_TIMEOUT" });
  });

  it("names a guard's failure without a code ERR_VERIFICATION", async () => {
    const client = createDeliveryClient();
    cleanups.push(() => client.close());
    const broken = {
      check: async () => {
        throw new Error("resolver exploded");
      },
    };
    const result = await verifyEndpoint(
      { url: "http://receiver.plant-store.invalid/", token: TOKEN, secrets: [generateWebhookSecret()] },
      { client, ssrfGuard: broken },
    );
    expect(result).toMatchObject({
      verified: false,
      reason: "refused-target",
      error: "ERR_VERIFICATION",
      message: "Not sent: resolver exploded",
    });
  });

  it("sends nothing to an address the SSRF guard refuses", async () => {
    const { server, secret, verify } = await setUp({ allowPrivateTargets: false });
    server.respond((request, response) => {
      response.writeHead(200).end(answerTo(request, [secret]));
    });
    const result = await verify();
    expect(result).toMatchObject({ verified: false, reason: "refused-target", error: "ERR_SSRF_BLOCKED" });
    expect(result.verified ? "" : result.message).toContain("127.0.0.1");
    expect(server.requests).toEqual([]);
  });
});
