import {
  defineWebhookCatalog,
  type EndpointFailing,
  generateWebhookSecret,
  OPERATIONAL_WEBHOOK_DEFINITIONS,
  PLANT_STORE_WEBHOOKS,
  signWebhook,
} from "@plant-store/types";
import { describe, expect, it } from "vitest";
import { createWebhookReceiver, type DeliveryRequest } from "./create-webhook-receiver.js";

// The store's alerts reach a catalog receiver whose catalog includes them, told apart by their
// `webhook-event-type` header, verified and checked against their schemas like any webhook.

const secret = generateWebhookSecret();
const catalog = defineWebhookCatalog([
  ...PLANT_STORE_WEBHOOKS.eventTypes.map((type) => PLANT_STORE_WEBHOOKS.get(type)),
  ...OPERATIONAL_WEBHOOK_DEFINITIONS,
]);
const failing: EndpointFailing = {
  type: "endpoint.failing",
  endpointId: 3,
  url: "https://receiver.example/plant/webhook",
  subscriberId: null,
  at: "2026-01-01T12:00:00.000Z",
  failingSince: "2026-01-01T12:00:00.000Z",
  lastStatus: 503,
  lastError: null,
};

function request(payload: unknown, eventType: string): DeliveryRequest {
  const body = JSON.stringify(payload);
  const timestamp = Math.floor(Date.now() / 1000);
  return {
    method: "POST",
    headers: {
      authorization: "Bearer t0ken",
      "content-type": "application/json",
      "webhook-id": "msg_alert",
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signWebhook({ secrets: [secret], id: "msg_alert", timestamp, body }) as string,
      "webhook-event-type": eventType,
    },
    hasBody: true,
    readBody: () => new TextEncoder().encode(body),
  };
}

describe("a catalog receiver taking the store's operational webhooks", () => {
  it("verifies an endpoint.failing alert and hands it over typed; refuses one that breaks its schema", async () => {
    const received: unknown[] = [];
    const receiver = createWebhookReceiver({
      catalog,
      tokens: ["t0ken"],
      secrets: [secret],
      handlers: { "endpoint.failing": (payload) => void received.push(payload) },
      sharedPath: "/alerts",
    });
    const route = receiver.routes.find((candidate) => candidate.path === "/alerts");
    if (!route) throw new Error("no shared route");
    expect((await receiver.handle(request(failing, "endpoint.failing"), route)).status).toBe(200);
    expect(received).toEqual([failing]);
    const { endpointId: _missing, ...broken } = failing;
    expect((await receiver.handle(request(broken, "endpoint.failing"), route)).status).toBe(400);
  });
});
