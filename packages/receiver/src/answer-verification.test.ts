import { createHmac } from "node:crypto";
import { type ThreeWebhooksEvents, threeWebhooksDocument } from "@plant-store/testing";
import {
  createWebhookCatalog,
  generateWebhookKeyPair,
  generateWebhookSecret,
  type NewPlant,
  signWebhook,
} from "@plant-store/types";
import { describe, expect, it } from "vitest";
import { createDeliveryHandler } from "./create-delivery-handler.js";
import {
  createWebhookReceiver,
  type DeliveryRequest,
  type WebhookReceiver,
} from "./create-webhook-receiver.js";

// The store's verification request, as every adapter hands it to the core: answered with its challenge
// and the response proving the receiver's whsec_ secrets only once the token and the signature passed, recognised by header and signed body together, and
// never given to a handler.

const secret = generateWebhookSecret();
const CHALLENGE = "q3TjW9y0bX8c1n5Lr2V6pK4sH7dQeA0fZmGuIwYoN1E";
const VERIFICATION = { type: "webhook.verification", challenge: CHALLENGE };

/** The answer's body, computed with node:crypto alone: one `v1,` HMAC per secret, in order. */
function answerBody(challenge: string, webhookId = "msg_verify", secrets: readonly string[] = [secret]) {
  const response = secrets
    .map((key) => {
      const mac = createHmac("sha256", Buffer.from(key.slice("whsec_".length), "base64"))
        .update(`webhook.verification.${webhookId}.${challenge}`)
        .digest("base64");
      return `v1,${mac}`;
    })
    .join(" ");
  return JSON.stringify({ challenge, response });
}

interface Sent {
  body?: unknown;
  eventType?: string | string[] | undefined;
  token?: string;
  signedWith?: string;
  id?: string;
}

function request(sent: Sent = {}): DeliveryRequest {
  const { body = VERIFICATION, token = "t0ken", signedWith = secret, id = "msg_verify" } = sent;
  // An explicit undefined is a request without the header, not the default.
  const eventType = "eventType" in sent ? sent.eventType : "webhook.verification";
  const text = JSON.stringify(body);
  const timestamp = Math.floor(Date.now() / 1000);
  const bytes = new TextEncoder().encode(text);
  return {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signWebhook({ secrets: [signedWith], id, timestamp, body: text }) as string,
      "webhook-event-type": eventType,
    },
    hasBody: true,
    readBody: () => bytes,
  };
}

function newPlantReceiver() {
  const plants: NewPlant[] = [];
  const infos: unknown[][] = [];
  const logger = { info: (...args: unknown[]) => void infos.push(args), warn() {}, error() {} };
  const receiver = createDeliveryHandler({
    tokens: ["t0ken"],
    secrets: [secret],
    logger,
    onNewPlant: (plant) => void plants.push(plant),
  });
  return { receiver, plants, infos };
}

async function answer(receiver: WebhookReceiver, sent: DeliveryRequest, index = 0) {
  const route = receiver.routes[index];
  if (route === undefined) throw new Error("no route");
  return await receiver.handle(sent, route);
}

describe("the verification request, answered by the receiver's core", () => {
  it("is answered 200 with its challenge and the response its secret makes, without running the handler", async () => {
    const { receiver, plants, infos } = newPlantReceiver();
    expect(await answer(receiver, request())).toStrictEqual({
      status: 200,
      headers: {},
      body: answerBody(CHALLENGE),
      closeConnection: false,
      outcome: { outcome: "verification", webhookId: "msg_verify" },
    });
    expect(plants).toEqual([]);
    expect(infos).toStrictEqual([[{ webhookId: "msg_verify" }, "webhook verification answered"]]);
  });

  it("echoes only the challenge: other fields of the body stay out of the answer", async () => {
    const { receiver } = newPlantReceiver();
    const answered = await answer(receiver, request({ body: { ...VERIFICATION, extra: "<script>" } }));
    expect(answered.body).toBe(answerBody(CHALLENGE));
  });

  it("binds the response to the request's webhook-id", async () => {
    const { receiver } = newPlantReceiver();
    const answered = await answer(receiver, request({ id: "msg_another" }));
    expect(answered.body).toBe(answerBody(CHALLENGE, "msg_another"));
    expect(answered.body).not.toBe(answerBody(CHALLENGE));
  });

  it("answers one response part per whsec_ secret, in order, skipping whpk_ public keys", async () => {
    const older = generateWebhookSecret();
    const { publicKey } = generateWebhookKeyPair();
    const receiver = createDeliveryHandler({
      tokens: ["t0ken"],
      secrets: [older, publicKey, secret],
      onNewPlant: () => undefined,
    });
    const answered = await answer(receiver, request());
    expect(answered.body).toBe(answerBody(CHALLENGE, "msg_verify", [older, secret]));
  });

  it("answers 501 when it holds only a public key: authenticated, but it has no secret to prove", async () => {
    const pair = generateWebhookKeyPair();
    const receiver = createDeliveryHandler({
      tokens: ["t0ken"],
      secrets: [pair.publicKey],
      onNewPlant: () => undefined,
    });
    const answered = await answer(receiver, request({ signedWith: pair.signingKey }));
    expect(answered).toMatchObject({
      status: 501,
      outcome: { outcome: "failed", code: "ERR_VERIFICATION_UNANSWERABLE" },
    });
    expect(JSON.parse(answered.body).message).toContain("holds no whsec_ secret");
    // A New Plant still reaches the handler of such a receiver.
    const plant = { id: 1, name: "Monstera deliciosa" };
    const delivered = await answer(
      receiver,
      request({ body: plant, eventType: "newPlant", signedWith: pair.signingKey }),
    );
    expect(delivered.status).toBe(200);
  });

  it("is answered every time it comes, even under one webhook-id, and uses up no id", async () => {
    const { receiver, plants } = newPlantReceiver();
    for (let i = 0; i < 2; i++) expect((await answer(receiver, request())).status).toBe(200);
    const plant = { id: 1, name: "Monstera deliciosa" };
    const delivered = await answer(receiver, request({ body: plant, eventType: "newPlant" }));
    expect(delivered.outcome).toStrictEqual({ outcome: "received", webhookId: "msg_verify" });
    expect(plants).toEqual([plant]);
  });

  it.each([
    ["a wrong bearer token", { token: "wr0ng" }, "ERR_INVALID_TOKEN"],
    ["another secret's signature", { signedWith: generateWebhookSecret() }, "ERR_INVALID_SIGNATURE"],
  ] as const)("tells a caller with %s nothing but the usual 401", async (_name, sent, code) => {
    const { receiver, infos } = newPlantReceiver();
    const refused = await answer(receiver, request(sent));
    expect(refused).toMatchObject({ status: 401, outcome: { outcome: "rejected", code } });
    expect(refused.body).not.toContain(CHALLENGE);
    expect(infos).toEqual([]);
  });

  it.each([
    ["a New Plant", { id: 1, name: "Monstera deliciosa" }, "type: Invalid input"],
    ["no challenge", { type: "webhook.verification" }, "challenge: Invalid input"],
    [
      "a challenge one character too short",
      { ...VERIFICATION, challenge: "a".repeat(15) },
      "challenge: Too small",
    ],
    [
      "a challenge one character too long",
      { ...VERIFICATION, challenge: "a".repeat(257) },
      "challenge: Too big",
    ],
    [
      "a challenge with characters outside base64url",
      { ...VERIFICATION, challenge: `${CHALLENGE}"}` },
      "challenge:",
    ],
  ])(
    "refuses a request named verification whose signed body is %s (400), running no handler",
    async (_name, body, issue) => {
      const { receiver, plants } = newPlantReceiver();
      const refused = await answer(receiver, request({ body }));
      expect(refused).toMatchObject({
        status: 400,
        outcome: { outcome: "rejected", code: "ERR_INVALID_PAYLOAD" },
      });
      expect(JSON.parse(refused.body).message).toMatch(/^Invalid webhook\.verification: /);
      expect(JSON.parse(refused.body).message).toContain(issue);
      expect(plants).toEqual([]);
    },
  );

  it("answers challenges of exactly the shortest and longest length", async () => {
    const { receiver } = newPlantReceiver();
    for (const challenge of ["a".repeat(16), "b".repeat(256)]) {
      const answered = await answer(receiver, request({ body: { ...VERIFICATION, challenge } }));
      expect(answered.body).toBe(answerBody(challenge));
    }
  });

  it.each([
    ["without the header", undefined],
    ["named newPlant", "newPlant"],
    ["with the header sent twice", ["webhook.verification", "webhook.verification"]],
  ])("does not answer a verification body %s: it is judged as that delivery", async (_name, eventType) => {
    const { receiver, infos } = newPlantReceiver();
    const refused = await answer(receiver, request({ eventType }));
    expect(refused.status).toBe(400);
    expect(refused.body).not.toContain(CHALLENGE);
    expect(infos).toEqual([]);
  });

  it("hands a New Plant whose payload happens to carry a type and a challenge to its handler", async () => {
    const { receiver, plants } = newPlantReceiver();
    const plant = { id: 2, name: "Ficus lyrata", ...VERIFICATION };
    const delivered = await answer(receiver, request({ body: plant, eventType: "newPlant" }));
    expect(delivered.outcome.outcome).toBe("received");
    expect(plants).toEqual([plant]);
  });

  it("is answered on every path of a catalog receiver, the shared one included", async () => {
    const handled: unknown[] = [];
    const receiver = createWebhookReceiver({
      catalog: createWebhookCatalog<ThreeWebhooksEvents>(threeWebhooksDocument),
      tokens: ["t0ken"],
      secrets: [secret],
      sharedPath: "/webhooks",
      handlers: { orderCreated: (order) => void handled.push(order) },
    });
    for (const index of receiver.routes.keys()) {
      const answered = await answer(receiver, request(), index);
      expect(answered).toMatchObject({ status: 200, outcome: { outcome: "verification" } });
      expect(answered.body).toBe(answerBody(CHALLENGE));
    }
    expect(receiver.routes.map((route) => route.path)).toContain("/webhooks");
    expect(handled).toEqual([]);
  });
});
