import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestReceiver, type TestReceiver } from "@plant-store/testing";
import {
  answerVerificationChallenge,
  generateWebhookSecret,
  WebhookVerificationSchema,
} from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { createDeliveryClient } from "../../src/delivery/create-delivery-client.js";
import { createSsrfGuard } from "../../src/delivery/create-ssrf-guard.js";
import { verifyEndpoint } from "../../src/delivery/verify-endpoint.js";
import type { Outbox } from "../../src/outbox.js";
import { createRetryPolicy } from "../../src/retry/create-retry-policy.js";
import { createSqliteOutbox } from "../../src/sqlite.js";
import { createWorker } from "../../src/worker/create-worker.js";

// Issue 25's done-when: "A subscriber endpoint whose server does not answer the handshake receives no
// New Plant delivery; after it answers correctly, it receives them." A file SQLite outbox, a real
// worker and two real HTTP servers on 127.0.0.1: the subscriber's, and the operator's, whose deliveries
// show the worker ran. (@plant-store/receiver depends on this package, so the subscriber's server
// here answers as a receiver would by hand; the receiver's own answer to `verifyEndpoint` is proven
// in packages/receiver, test/integration/verification-handshake.test.ts.)

const TOKEN = "subscriber-t0ken";

describe("a subscriber's endpoint and the verification handshake", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("gets no New Plant while its server does not answer the handshake, and every later one once it does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sender-handshake-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const outbox: Outbox = createSqliteOutbox(join(dir, "outbox.db"));
    cleanups.push(() => outbox.close());
    const subscriberServer: TestReceiver = await startTestReceiver();
    const operatorServer: TestReceiver = await startTestReceiver();
    cleanups.push(
      () => subscriberServer.close(),
      () => operatorServer.close(),
    );
    const client = createDeliveryClient();
    cleanups.push(() => client.close());
    const ssrfGuard = createSsrfGuard({ allowPrivateTargets: true });
    const secret = generateWebhookSecret();

    // A server that knows nothing of the handshake: 404 to everything.
    subscriberServer.respond((_request, response) => {
      response
        .writeHead(404, { "content-type": "application/json" })
        .end('{"error":404,"message":"Not found"}');
    });
    const acme = (await outbox.addSubscriber({ name: "Acme" })).subscriber;
    const endpoint = await outbox.addEndpoint({
      url: `${subscriberServer.url}/plant/webhook`,
      token: TOKEN,
      secrets: [secret],
      subscriberId: acme.id,
    });
    await outbox.addEndpoint({
      url: `${operatorServer.url}/plant/webhook`,
      token: "operator-t0ken",
      secrets: [secret],
    });

    const refused = await verifyEndpoint(endpoint, { client, ssrfGuard });
    expect(refused).toMatchObject({ verified: false, reason: "status", status: 404 });
    expect(subscriberServer.requests).toHaveLength(1);

    const worker = createWorker({
      outbox,
      client,
      ssrfGuard,
      policy: createRetryPolicy({ schedule: "0,20ms", jitter: 0 }),
      pollIntervalMs: 25,
    });
    cleanups.push(() => worker.stop());
    worker.start();
    const held = await outbox.enqueue({ payload: { id: 1, name: "Monstera deliciosa" } });
    // Delivered to the operator: the worker has run this message's deliveries.
    await operatorServer.waitForRequests(1);
    expect(held.deliveries).toBe(1);
    const heldDeliveries = await outbox.listDeliveries({ messageId: held.messageId });
    expect(heldDeliveries.map((delivery) => delivery.endpointId)).not.toContain(endpoint.id);
    // The only request the subscriber's server ever saw is the handshake it failed.
    expect(subscriberServer.requests.map((request) => request.headers["webhook-event-type"])).toEqual([
      "webhook.verification",
    ]);

    // Now it answers as a receiver does: the signature checked, then the challenge and the response that
    // proves its secret; a delivery acknowledged.
    subscriberServer.respond((request, response) => {
      const headers = request.headers as Record<string, string>;
      const body = new Webhook(secret).verify(request.body, headers);
      if (headers.authorization !== `Bearer ${TOKEN}`) {
        response.writeHead(401).end();
        return;
      }
      const verification = WebhookVerificationSchema.safeParse(body);
      response.writeHead(200, { "content-type": "application/json" }).end(
        headers["webhook-event-type"] === "webhook.verification" && verification.success
          ? JSON.stringify({
              challenge: verification.data.challenge,
              response: answerVerificationChallenge({
                secrets: [secret],
                webhookId: headers["webhook-id"] as string,
                challenge: verification.data.challenge,
              }),
            })
          : '{"received":true}',
      );
    });
    const accepted = await verifyEndpoint(endpoint, { client, ssrfGuard });
    expect(accepted).toMatchObject({ verified: true, status: 200 });
    expect(
      await outbox.markEndpointVerified(endpoint.id, { subscriberId: acme.id }, endpoint.url),
    ).toMatchObject({
      verified: true,
    });

    await outbox.enqueue({ payload: { id: 2, name: "Ficus lyrata" } });
    await outbox.enqueue({ payload: { id: 3, name: "Pilea peperomioides", tag: "easy" } });
    const requests = await subscriberServer.waitForRequests(4);
    const plants = requests
      .filter((request) => request.headers["webhook-event-type"] !== "webhook.verification")
      .map((request) => new Webhook(secret).verify(request.body, request.headers as Record<string, string>))
      // The worker may send the two at once: their order is not the point.
      .sort((a, b) => (a as { id: number }).id - (b as { id: number }).id);
    expect(plants).toEqual([
      { id: 2, name: "Ficus lyrata" },
      { id: 3, name: "Pilea peperomioides", tag: "easy" },
    ]);
    // The first plant was never queued for it: it was fanned out while the endpoint was unverified.
    expect(plants).not.toContainEqual({ id: 1, name: "Monstera deliciosa" });
  });
});
