import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { webhookApiKoa } from "@plant-store/api/koa";
import { type ApiAnswer, callApi } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApi } from "../../src/create-admin-app.js";
import { openStore, type Store } from "../../src/open-store.js";
import { expectDocumented } from "../fixtures/expect-documented.js";

// POST /messages on the store's own outbox (a real SQLite file, the contract's catalog): the message a
// service embedding the API sends, with the keys `POST /plants` takes.
const adminToken = "admin-token-messages-0123";
const dir = mkdtempSync(join(tmpdir(), "plant-store-messages-"));
let store: Store;
let server: Server;
let base: string;
let subscriberToken: string;
let woken = 0;

/** POST /messages as the operator, with optional headers; checked against the document. */
async function send(body: unknown, headers: Record<string, string> = {}): Promise<ApiAnswer> {
  const response = await fetch(`${base}/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  const answer = { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
  expectDocumented("post", "/messages", answer.status, answer.body);
  return answer;
}

beforeAll(async () => {
  store = await openStore(join(dir, "store.db"));
  // Two endpoints receive every message: nothing delivers here (no worker), the deliveries are counted.
  for (const port of [9, 10])
    await store.outbox.addEndpoint({
      url: `http://127.0.0.1:${port}/hook`,
      token: "receiver-token",
      secrets: [generateWebhookSecret()],
    });
  const api = createAdminApi({
    outbox: store.outbox,
    plants: store.plants,
    adminToken,
    registry: new Registry(),
    wake: () => {
      woken++;
    },
  });
  server = webhookApiKoa(api).listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  ({ token: subscriberToken } = await store.outbox.addSubscriber({ name: "A stranger" }));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("POST /messages", () => {
  it("queues a message for every endpoint and answers 202 with its webhook id, event type, ordering key and deliveries", async () => {
    const before = woken;
    const answer = await send({
      eventType: "newPlant",
      payload: { id: 7, name: "Ficus lyrata" },
      orderingKey: "greenhouse-3",
    });
    expect(answer.status).toBe(202);
    expect(answer.body).toStrictEqual({
      message: {
        webhookId: expect.stringMatching(/^msg_/),
        eventType: "newPlant",
        orderingKey: "greenhouse-3",
      },
      queued: 2,
    });
    expect(answer.headers.get("idempotency-replayed")).toBeNull();
    expect(woken).toBe(before + 1);
    const deliveries = await store.outbox.listDeliveries({});
    const mine = deliveries.filter((d) => d.webhookId === answer.body.message.webhookId);
    expect(mine.map((d) => [d.eventType, d.orderingKey, d.status])).toStrictEqual([
      ["newPlant", "greenhouse-3", "pending"],
      ["newPlant", "greenhouse-3", "pending"],
    ]);
    const message = await store.outbox.getMessage(mine[0]?.messageId as number);
    expect(JSON.parse(message?.payload as string)).toStrictEqual({ id: 7, name: "Ficus lyrata" });
  });

  it("answers a replayed idempotency key (body or header) with the first answer, Idempotency-Replayed and nothing queued", async () => {
    const message = { eventType: "newPlant", payload: { id: 8, name: "Pilea" }, orderingKey: "bench-1" };
    const first = await send({ ...message, idempotencyKey: "order-8" });
    expect(first.status).toBe(202);
    const deliveries = (await store.outbox.listDeliveries({})).length;
    const before = woken;
    for (const again of [
      await send({ ...message, idempotencyKey: "order-8" }),
      await send(message, { "Idempotency-Key": "order-8" }),
      await send({ ...message, idempotencyKey: "order-8" }, { "Idempotency-Key": "order-8" }),
      await send(
        { eventType: "newPlant", payload: message.payload, idempotencyKey: "order-8" },
        {
          "Ordering-Key": "bench-1",
        },
      ),
    ]) {
      expect(again.status).toBe(202);
      expect(again.body).toStrictEqual(first.body);
      expect(again.headers.get("idempotency-replayed")).toBe("true");
    }
    expect((await store.outbox.listDeliveries({})).length).toBe(deliveries);
    expect(woken).toBe(before);
  });

  it("refuses a key reused with another payload or ordering key with 409, queuing nothing", async () => {
    const first = await send({
      eventType: "newPlant",
      payload: { id: 9, name: "Calathea" },
      idempotencyKey: "order-9",
    });
    expect(first.status).toBe(202);
    const deliveries = (await store.outbox.listDeliveries({})).length;
    for (const reused of [
      { eventType: "newPlant", payload: { id: 9, name: "Calathea orbifolia" }, idempotencyKey: "order-9" },
      {
        eventType: "newPlant",
        payload: { id: 9, name: "Calathea" },
        idempotencyKey: "order-9",
        orderingKey: "k",
      },
    ]) {
      const answer = await send(reused);
      expect(answer.status).toBe(409);
      expect(answer.body).toStrictEqual({
        error: 409,
        message:
          "This idempotency key was already used with another message (event type, payload or ordering key); nothing was queued",
      });
    }
    expect((await store.outbox.listDeliveries({})).length).toBe(deliveries);
  });

  it("refuses what it cannot queue with 400 naming the problem, queuing nothing", async () => {
    const deliveries = (await store.outbox.listDeliveries({})).length;
    const refused = async (body: unknown, headers: Record<string, string> = {}) => {
      const answer = await send(body, headers);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      return answer.body.message as string;
    };
    const plant = { id: 1, name: "Aloe" };
    expect(await refused({ eventType: "newPlant" })).toMatch(/^Invalid message: payload: /);
    expect(await refused({ eventType: "newPlant", payload: [plant] })).toBe(
      "Invalid message: payload: must be a JSON object",
    );
    expect(await refused({ eventType: "new plant!", payload: plant })).toBe(
      "Invalid message: eventType: must be 1 to 200 letters, digits or _ . : / - (an operationId, say)",
    );
    expect(await refused({ eventType: "newPlant", payload: plant, extra: 1 })).toMatch(/extra/);
    expect(await refused([plant])).toMatch(/^Invalid message: \(body\): /);
    // The queue's own rules, in its words: the outbox's catalog, the payload's schema, its alerts.
    expect(await refused({ eventType: "order.created", payload: plant })).toBe(
      "eventType must be one of this outbox's webhooks (newPlant)",
    );
    expect(await refused({ eventType: "newPlant", payload: { id: 1 } })).toMatch(
      /^The newPlant payload is refused: name: /,
    );
    expect(await refused({ eventType: "endpoint.disabled", payload: plant })).toMatch(
      /operational webhooks, which only the outbox queues/,
    );
    // Keys: well-formed, and the same wherever they are given.
    expect(await refused({ eventType: "newPlant", payload: plant, idempotencyKey: "has space" })).toMatch(
      /^Invalid message: idempotencyKey: must be printable ASCII without spaces/,
    );
    expect(
      await refused(
        { eventType: "newPlant", payload: plant, idempotencyKey: "a" },
        { "Idempotency-Key": "b" },
      ),
    ).toBe(
      "Invalid message: the Idempotency-Key header and idempotencyKey differ; send one, or the same in both",
    );
    expect(
      await refused({ eventType: "newPlant", payload: plant, orderingKey: "a" }, { "Ordering-Key": "b" }),
    ).toBe("Invalid message: the Ordering-Key header and orderingKey differ; send one, or the same in both");
    expect(await refused({ eventType: "newPlant", payload: plant }, { "Idempotency-Key": "  " })).toBe(
      "Invalid Idempotency-Key header: must not be empty or only spaces; send no header for no key",
    );
    expect(await refused("{ not json")).toBe("Body is not valid JSON");
    expect((await store.outbox.listDeliveries({})).length).toBe(deliveries);
  });

  it("answers a subscriber's token 404 as a path that does not exist, and no token 401", async () => {
    const body = { eventType: "newPlant", payload: { id: 1, name: "Aloe" } };
    const stranger = await callApi(base, "POST", "/messages", { token: subscriberToken, body });
    expect(stranger.status).toBe(404);
    expect(stranger.body).toStrictEqual({ error: 404, message: "Route not found" });
    const nobody = await callApi(base, "POST", "/messages", { body });
    expect(nobody.status).toBe(401);
    expectDocumented("post", "/messages", nobody.status, nobody.body);
  });
});
