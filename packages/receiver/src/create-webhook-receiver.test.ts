import { type ThreeWebhooksEvents, threeWebhooksDocument } from "@plant-store/testing";
import {
  createWebhookCatalog,
  generateWebhookSecret,
  PLANT_STORE_WEBHOOKS,
  signWebhook,
} from "@plant-store/types";
import { describe, expect, it } from "vitest";
import {
  createWebhookReceiver,
  type DeliveryRequest,
  isWebhookReceiver,
  JSON_TYPE,
  type WebhookReceiverOptions,
} from "./create-webhook-receiver.js";
import { InvalidReceiverOptionsError } from "./errors/invalid-receiver-options-error.js";
import { PayloadTooLargeError } from "./errors/payload-too-large-error.js";

// The catalog receiver called as an adapter calls it, without a server: its options' problems, how
// it tells a delivery's event type, and what it answers when it cannot.

const secret = generateWebhookSecret();
const catalog = createWebhookCatalog<ThreeWebhooksEvents>(threeWebhooksDocument);
const base = { catalog, tokens: ["t0ken"], secrets: [secret] };

const make = (options: Partial<WebhookReceiverOptions<ThreeWebhooksEvents>> = {}) =>
  createWebhookReceiver({ ...base, handlers: { orderCreated: () => undefined }, ...options });

function request(payload: unknown, eventType?: string | string[]): DeliveryRequest {
  const body = JSON.stringify(payload);
  const timestamp = Math.floor(Date.now() / 1000);
  const bytes = new TextEncoder().encode(body);
  return {
    method: "POST",
    headers: {
      authorization: "Bearer t0ken",
      "content-type": "application/json",
      "webhook-id": "msg_1",
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signWebhook({ secrets: [secret], id: "msg_1", timestamp, body }) as string,
      "webhook-event-type": eventType,
    },
    hasBody: true,
    readBody: () => bytes,
  };
}

const answer = async (receiver: ReturnType<typeof make>, sent: DeliveryRequest, path = "/orders/created") => {
  const route = receiver.routes.find((candidate) => candidate.path === path);
  if (route === undefined) throw new Error(`no route ${path}`);
  return await receiver.handle(sent, route);
};

describe("createWebhookReceiver", () => {
  it("lists every problem of its options at once", () => {
    expect(() =>
      createWebhookReceiver({
        ...base,
        handlers: { orderCreated: "no" as never, orderRefunded: () => undefined } as never,
        paths: { orderShipped: "orders/shipped", customerUpdated: 7, orderRefunded: "/x" } as never,
        sharedPath: "webhooks",
      }),
    ).toThrow(
      new InvalidReceiverOptionsError(
        "Invalid receiver options: handlers.orderCreated: must be a function; " +
          "handlers.orderRefunded: not a webhook of the catalog; paths.orderShipped: must start with /; " +
          "paths.customerUpdated: must start with /; paths.orderRefunded: not a webhook of the catalog; " +
          "sharedPath: must start with /",
      ),
    );
    expect(() => make({ sharedPath: 7 as never })).toThrow(
      /^Invalid receiver options: sharedPath: must start with \/$/,
    );
  });

  it.each([undefined, null, "catalog", {}])("refuses %j as its catalog", (value) => {
    expect(() => make({ catalog: value as never })).toThrow(
      new InvalidReceiverOptionsError(
        "Invalid receiver options: catalog: must be a webhook catalog (createWebhookCatalog or PLANT_STORE_WEBHOOKS)",
      ),
    );
  });

  it("takes a webhook at the path given for it, and no longer at its own", () => {
    expect(make({ paths: { orderShipped: "/hooks/shipped" }, sharedPath: "/hooks" }).routes).toStrictEqual([
      { path: "/orders/created", eventType: "orderCreated" },
      { path: "/hooks/shipped", eventType: "orderShipped" },
      { path: "/customers/updated", eventType: "customerUpdated" },
      { path: "/hooks", eventType: undefined },
    ]);
  });

  it("refuses a repeated webhook-event-type (400), leaving the connection open: the body was read", async () => {
    const warnings: unknown[] = [];
    const logger = { info() {}, warn: (fields: object) => void warnings.push(fields), error() {} };
    const refused = await answer(
      make({ logger }),
      request({ id: 1, total: 1 }, ["orderCreated", "orderCreated"]),
    );
    expect(warnings).toStrictEqual([{ status: 400, code: "ERR_UNKNOWN_EVENT_TYPE" }]);
    expect(refused).toStrictEqual({
      status: 400,
      headers: {},
      body: JSON.stringify({
        error: 400,
        message: "Unknown webhook event type: webhook-event-type sent twice",
      }),
      closeConnection: false,
      outcome: { outcome: "rejected", code: "ERR_UNKNOWN_EVENT_TYPE" },
    });
  });

  it("names an unknown type in its answer printable and at most 100 characters long", async () => {
    const named = `order Refunded\u0007${"x".repeat(200)}`;
    const { body } = await answer(make(), request({ id: 1, total: 1 }, named));
    expect(JSON.parse(body)).toStrictEqual({
      error: 400,
      message: `Unknown webhook event type: "orderRefunded${"x".repeat(87)}" is not one of orderCreated, orderShipped, customerUpdated`,
    });
  });

  it("closes the connection when the body could not be read", async () => {
    const sent = request({ id: 1, total: 1 });
    const refused = await answer(make(), {
      ...sent,
      readBody: () => Promise.reject(new PayloadTooLargeError(10)),
    });
    expect(refused).toMatchObject({ status: 413, closeConnection: true });
  });

  it("answers the JSON type it declares", () => {
    expect(JSON_TYPE).toBe("application/json; charset=utf-8");
  });
});

describe("isWebhookReceiver", () => {
  it("tells a receiver from anything else, the New Plant options included", () => {
    const receiver = make();
    const lookalike = Object.assign(() => undefined, {
      [Symbol.for("@plant-store/receiver.webhook-receiver")]: true,
    });
    expect(isWebhookReceiver(receiver)).toBe(true);
    for (const other of [
      null,
      undefined,
      "receiver",
      {},
      lookalike,
      { ...base, onNewPlant: () => undefined },
    ]) {
      expect(isWebhookReceiver(other)).toBe(false);
    }
  });
});

describe("a catalog some of whose webhooks need no bearer token", () => {
  const body = { content: { "application/json": { schema: { type: "object" } } } };
  const mixed = createWebhookCatalog({
    security: [{ bearerAuth: [] }],
    webhooks: {
      "order.created": { post: { requestBody: body } },
      "invoice.paid": { post: { security: [], requestBody: body } },
    },
    components: { securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } } } as never,
  });
  const open = createWebhookCatalog({ webhooks: { "invoice.paid": { post: { requestBody: body } } } });
  const handled: string[] = [];
  const handlers = {
    "order.created": (_payload: unknown, context: { webhookId: string }) =>
      void handled.push(context.webhookId),
    "invoice.paid": (_payload: unknown, context: { webhookId: string }) =>
      void handled.push(context.webhookId),
  };
  const send = async (
    receiver: ReturnType<typeof createWebhookReceiver>,
    eventType: string,
    authorization: string | undefined,
    id: string,
  ) => {
    const sent = request({}, eventType);
    const signedAs = JSON.stringify({});
    const timestamp = Math.floor(Date.now() / 1000);
    sent.headers["webhook-id"] = id;
    sent.headers["webhook-timestamp"] = String(timestamp);
    sent.headers["webhook-signature"] = signWebhook({
      secrets: [secret],
      id,
      timestamp,
      body: signedAs,
    }) as string;
    sent.headers.authorization = authorization;
    const route = receiver.routes.find((candidate) => candidate.path === `/${eventType}`);
    if (route === undefined) throw new Error(`no route for ${eventType}`);
    return await receiver.handle(sent, route);
  };

  it("takes the token-free webhook without Authorization, and the other only with its token", async () => {
    const receiver = createWebhookReceiver({
      catalog: mixed,
      tokens: ["t0ken"],
      secrets: [secret],
      handlers,
    });
    expect(await send(receiver, "invoice.paid", undefined, "msg_open")).toMatchObject({ status: 200 });
    expect(await send(receiver, "order.created", undefined, "msg_closed")).toMatchObject({
      status: 401,
      outcome: { code: "ERR_MISSING_TOKEN" },
    });
    expect(await send(receiver, "order.created", "Bearer wrong", "msg_wrong")).toMatchObject({
      status: 401,
      outcome: { code: "ERR_INVALID_TOKEN" },
    });
    // A token presented to the token-free webhook must still be one of the receiver's.
    expect(await send(receiver, "invoice.paid", "Bearer wrong", "msg_open_wrong")).toMatchObject({
      status: 401,
    });
    expect(await send(receiver, "order.created", "Bearer t0ken", "msg_closed_ok")).toMatchObject({
      status: 200,
    });
    expect(handled).toEqual(["msg_open", "msg_closed_ok"]);
  });

  it("needs tokens only when a webhook of its catalog needs one", async () => {
    expect(() => createWebhookReceiver({ catalog: mixed, secrets: [secret], handlers })).toThrow(
      "Invalid receiver options: tokens: at least one is required (order.created needs a bearer token)",
    );
    // New Plant's catalog (and any definition given by hand) needs a token for every webhook.
    expect(() =>
      createWebhookReceiver({
        catalog: PLANT_STORE_WEBHOOKS,
        secrets: [secret],
        handlers: { newPlant: () => {} },
      }),
    ).toThrow(/tokens: at least one is required/);
    const receiver = createWebhookReceiver({
      catalog: open,
      secrets: [secret],
      handlers: { "invoice.paid": handlers["invoice.paid"] },
    });
    expect(await send(receiver, "invoice.paid", undefined, "msg_free")).toMatchObject({ status: 200 });
    expect(await send(receiver, "invoice.paid", "Bearer anything", "msg_free_2")).toMatchObject({
      status: 200,
    });
  });
});
