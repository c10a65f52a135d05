import { createServer } from "node:http";
import { type ThreeWebhooksEvents, threeWebhooksDocument } from "@plant-store/testing";
import {
  createWebhookCatalog,
  generateWebhookSecret,
  PLANT_STORE_WEBHOOKS,
  WEBHOOK_EVENT_TYPE_HEADER,
} from "@plant-store/types";
import express from "express";
import Koa from "koa";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import {
  createFetchHandler,
  createNodeMiddleware,
  createWebhookReceiver,
  InvalidReceiverOptionsError,
  type WebhookContext,
} from "../../src/index.js";
import { createPlantWebhookMiddleware, createPlantWebhookRouter } from "../../src/koa.js";
import { listen } from "../fixtures/listen.js";

// A receiver for every webhook of the three-webhook fixture document, fed deliveries signed by the
// reference `standardwebhooks` library over real HTTP on 127.0.0.1, through each adapter.

const token = "catalog-t0ken";
const secret = generateWebhookSecret();
const catalog = createWebhookCatalog<ThreeWebhooksEvents>(threeWebhooksDocument);

interface Received {
  eventType: string;
  payload: unknown;
  webhookId: string;
}

function makeReceiver(received: Received[]) {
  return createWebhookReceiver({
    catalog,
    tokens: [token],
    secrets: [secret],
    sharedPath: "/webhooks",
    handlers: {
      orderCreated: (order, context) => {
        expectTypeOf(order.total).toEqualTypeOf<number>();
        expectTypeOf(context.eventType).toEqualTypeOf<"orderCreated">();
        received.push({ eventType: context.eventType, payload: order, webhookId: context.webhookId });
      },
      orderShipped: (shipment, { eventType, webhookId }) => {
        expectTypeOf(shipment.carrier).toEqualTypeOf<"post" | "courier">();
        received.push({ eventType, payload: shipment, webhookId });
      },
      // customerUpdated has no handler: answered 501.
    },
  });
}

/** A delivery signed by `standardwebhooks`, with the sender's `webhook-event-type` when given. */
function signed(payload: unknown, eventType?: string, id = `msg_${crypto.randomUUID()}`) {
  const body = JSON.stringify(payload);
  const at = new Date();
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(id, at, body),
  };
  if (eventType !== undefined) headers[WEBHOOK_EVENT_TYPE_HEADER] = eventType;
  return { id, init: { method: "POST", headers, body } };
}

type Send = (path: string, init: RequestInit) => Promise<Response>;

const adapters: Array<
  [string, (received: Received[]) => Promise<{ send: Send; close: () => Promise<void> }>]
> = [
  [
    "createNodeMiddleware in Express",
    async (received) => {
      const app = express().use(createNodeMiddleware(makeReceiver(received)));
      app.use((_req, res) => res.status(404).json({ error: 404, message: "next" }));
      const { origin, close } = await listen(createServer(app));
      return { send: (path, init) => fetch(`${origin}${path}`, init), close };
    },
  ],
  [
    "the Koa router",
    async (received) => {
      const router = createPlantWebhookRouter(makeReceiver(received));
      const app = new Koa().use(router.routes()).use(router.allowedMethods());
      const { origin, close } = await listen(createServer(app.callback()));
      return { send: (path, init) => fetch(`${origin}${path}`, init), close };
    },
  ],
  [
    "the Koa middleware",
    async (received) => {
      const app = new Koa().use(createPlantWebhookMiddleware(makeReceiver(received)));
      const { origin, close } = await listen(createServer(app.callback()));
      return { send: (path, init) => fetch(`${origin}${path}`, init), close };
    },
  ],
  [
    "createFetchHandler (in process)",
    async (received) => {
      const handle = createFetchHandler(makeReceiver(received));
      return {
        send: (path, init) => handle(new Request(`http://receiver.test${path}`, init)),
        close: async () => {},
      };
    },
  ],
];

describe.each(adapters)("a catalog receiver through %s", (_name, start) => {
  const received: Received[] = [];
  let send: Send;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ send, close } = await start(received));
  });
  afterAll(async () => close());

  it("dispatches each webhook by its path when no event type is sent (the contract's convention)", async () => {
    const created = signed({ id: 7, total: 12.5, currency: "EUR" });
    const shipped = signed({ orderId: 7, carrier: "post" });
    expect((await send("/orders/created", created.init)).status).toBe(200);
    expect((await send("/orders/shipped", shipped.init)).status).toBe(200);
    expect(received.slice(-2)).toStrictEqual([
      { eventType: "orderCreated", payload: { id: 7, total: 12.5, currency: "EUR" }, webhookId: created.id },
      { eventType: "orderShipped", payload: { orderId: 7, carrier: "post" }, webhookId: shipped.id },
    ]);
  });

  it("takes the webhook-event-type header over the path, as the sender sends it to one endpoint URL", async () => {
    const shipped = signed({ orderId: 8, carrier: "courier" }, "orderShipped");
    const response = await send("/orders/created", shipped.init);
    expect(await response.json()).toStrictEqual({ received: true, duplicate: false });
    expect(received.at(-1)).toStrictEqual({
      eventType: "orderShipped",
      payload: { orderId: 8, carrier: "courier" },
      webhookId: shipped.id,
    });
  });

  it("takes every type on the shared path by its header, and refuses a delivery there without one", async () => {
    const created = signed({ id: 11, total: 2 }, "orderCreated");
    expect((await send("/webhooks", created.init)).status).toBe(200);
    expect(received.at(-1)?.eventType).toBe("orderCreated");
    const unnamed = await send("/webhooks", signed({ id: 11, total: 2 }).init);
    expect(unnamed.status).toBe(400);
    expect(await unnamed.json()).toStrictEqual({
      error: 400,
      message: "Unknown webhook event type: no webhook-event-type header, which /webhooks needs",
    });
  });

  it("checks the payload with its own webhook's schema (400 naming the field)", async () => {
    const response = await send("/orders/shipped", signed({ orderId: 9, carrier: "pigeon" }).init);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(
      /^Invalid orderShipped: carrier: /,
    );
    // An order is not a shipment: the header decides which schema applies.
    const mislabelled = await send("/orders/created", signed({ id: 9, total: 1 }, "orderShipped").init);
    expect(mislabelled.status).toBe(400);
  });

  it("answers 400 ERR_UNKNOWN_EVENT_TYPE for a type not in the catalog, 501 for one without a handler", async () => {
    const before = received.length;
    const unknown = await send("/orders/created", signed({ id: 1, total: 1 }, "orderRefunded").init);
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { message: string }).message).toBe(
      'Unknown webhook event type: "orderRefunded" is not one of orderCreated, orderShipped, customerUpdated',
    );
    const unhandled = await send("/customers/updated", signed({ customerId: "c1", name: "Ada" }).init);
    expect(unhandled.status).toBe(501);
    expect(await unhandled.json()).toStrictEqual({
      error: 501,
      message: "No handler for the webhook event type customerUpdated",
    });
    expect(received.length).toBe(before);
  });

  it("verifies before it reads the event type: a bad signature is 401 whatever the type", async () => {
    const { init } = signed({ id: 1, total: 1 }, "orderRefunded");
    const headers = { ...(init.headers as Record<string, string>), "webhook-signature": "v1,AAAA" };
    expect((await send("/orders/created", { ...init, headers })).status).toBe(401);
  });

  it("de-duplicates by webhook-id across types", async () => {
    const first = signed({ id: 10, total: 3 }, "orderCreated");
    expect((await send("/orders/created", first.init)).status).toBe(200);
    const again = signed({ orderId: 10, carrier: "post" }, "orderShipped", first.id);
    expect(await (await send("/orders/shipped", again.init)).json()).toStrictEqual({
      received: true,
      duplicate: true,
    });
    expect(received.filter((r) => r.webhookId === first.id)).toHaveLength(1);
  });

  it("leaves other paths alone", async () => {
    expect((await send("/plant/webhook", signed({ id: 1, total: 1 }).init)).status).toBe(404);
  });
});

describe("the New Plant receiver, one instance of the catalog receiver", () => {
  it("takes New Plant with or without the sender's webhook-event-type, and refuses another type", async () => {
    const plants: unknown[] = [];
    const { origin, close } = await listen(
      createServer(
        createNodeMiddleware({
          tokens: [token],
          secrets: [secret],
          onNewPlant: (plant) => void plants.push(plant),
        }),
      ),
    );
    try {
      const plant = { id: 1, name: "Monstera" };
      const post = (init: RequestInit) => fetch(`${origin}/plant/webhook`, init);
      expect((await post(signed(plant).init)).status).toBe(200);
      expect((await post(signed(plant, "newPlant").init)).status).toBe(200);
      expect((await post(signed(plant, "orderCreated").init)).status).toBe(400);
      expect(plants).toStrictEqual([plant, plant]);
    } finally {
      await close();
    }
  });
});

describe("createWebhookReceiver's options", () => {
  const base = { catalog, tokens: [token], secrets: [secret] };

  it("refuses handlers and paths for types outside the catalog, and two webhooks on one path", () => {
    expect(() =>
      createWebhookReceiver({
        ...base,
        handlers: { orderCreated: () => undefined, orderRefunded: () => undefined } as never,
      }),
    ).toThrow(
      new InvalidReceiverOptionsError(
        "Invalid receiver options: handlers.orderRefunded: not a webhook of the catalog",
      ),
    );
    expect(() => createWebhookReceiver({ ...base, handlers: {} })).toThrow(
      /handlers: at least one is required/,
    );
    expect(() =>
      createWebhookReceiver({
        ...base,
        handlers: { orderCreated: () => undefined },
        paths: { orderShipped: "/Orders/Created" },
      }),
    ).toThrow(/paths: orderShipped and orderCreated share the path \/Orders\/Created/);
    expect(() =>
      createWebhookReceiver({
        ...base,
        handlers: { orderCreated: () => undefined },
        sharedPath: "/orders/shipped",
      }),
    ).toThrow(/sharedPath: \/orders\/shipped is the path of orderShipped/);
  });

  it("types each handler by its event type's payload", () => {
    const receiver = createWebhookReceiver({
      catalog: PLANT_STORE_WEBHOOKS,
      ...{ tokens: [token], secrets: [secret] },
      handlers: {
        newPlant: (plant, context) => {
          expectTypeOf(plant.name).toEqualTypeOf<string>();
          expectTypeOf(context).toEqualTypeOf<WebhookContext<"newPlant">>();
        },
      },
    });
    expectTypeOf(receiver.eventTypes).toEqualTypeOf<readonly "newPlant"[]>();
    expect(receiver.routes).toStrictEqual([{ path: "/plant/webhook", eventType: "newPlant" }]);
  });
});
