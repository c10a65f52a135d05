import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { componentJsonSchema } from "../src/component-json-schema.js";
import { openapi } from "../src/openapi.js";
import { createAjv } from "./ajv.js";

// The handshake is documented beside New Plant, not as a second webhook: the seed defines one
// webhook, and a catalog made from `webhooks` must not offer it as an event type to handle.
const verification = openapi.components.pathItems.WebhookVerification.post;
const CHALLENGE = "q3TjW9y0bX8c1n5Lr2V6pK4sH7dQeA0fZmGuIwYoN1E";
const RESPONSE = "v1,cqbHE0dtukBWoMkU/aDNM5OpiP5TNcvKcKDAerYYGQE=";

describe("the verification handshake in the contract", () => {
  it("is a reusable path item, not an entry of webhooks", () => {
    expect(Object.keys(openapi.webhooks)).toStrictEqual(["/plant/webhook"]);
    expect(verification.operationId).toBe("webhookVerification");
    expect(openapi.webhooks["/plant/webhook"].post.description).toContain(
      "`components.pathItems.WebhookVerification`",
    );
  });

  it("is authenticated and signed like a delivery, and names its type in webhook-event-type", () => {
    expect(verification.security).toStrictEqual([{ bearerAuth: [] }]);
    expect(verification.parameters.map((p) => [p.name, p.in, p.required])).toStrictEqual([
      ["webhook-id", "header", true],
      ["webhook-timestamp", "header", true],
      ["webhook-signature", "header", true],
      ["webhook-event-type", "header", true],
    ]);
    expect(verification.parameters[3]?.schema).toStrictEqual({
      type: "string",
      const: "webhook.verification",
    });
  });

  it("takes a WebhookVerification body and is answered 200 with a WebhookVerificationAnswer", () => {
    expect(verification.requestBody.content["application/json"].schema).toStrictEqual({
      $ref: "#/components/schemas/WebhookVerification",
    });
    expect(verification.responses["200"].content["application/json"].schema).toStrictEqual({
      $ref: "#/components/schemas/WebhookVerificationAnswer",
    });
  });

  it("lets an independent JSON Schema validator tell a request and its answer from anything else", () => {
    const ajv = createAjv();
    const request = ajv.compile(componentJsonSchema("WebhookVerification"));
    const answer = ajv.compile(componentJsonSchema("WebhookVerificationAnswer"));
    expect(request({ type: "webhook.verification", challenge: CHALLENGE })).toBe(true);
    expect(request({ type: "webhook.verification", challenge: CHALLENGE, later: 1 })).toBe(true);
    expect(request({ type: "newPlant", challenge: CHALLENGE })).toBe(false);
    expect(request({ type: "webhook.verification" })).toBe(false);
    expect(request({ type: "webhook.verification", challenge: "short" })).toBe(false);
    expect(request({ type: "webhook.verification", challenge: `${CHALLENGE}+/` })).toBe(false);
    expect(request({ type: "webhook.verification", challenge: "a".repeat(257) })).toBe(false);
    expect(request({ id: 1, name: "Monstera deliciosa" })).toBe(false);
    expect(answer({ challenge: CHALLENGE, response: RESPONSE })).toBe(true);
    expect(answer({ challenge: CHALLENGE, response: RESPONSE, later: 1 })).toBe(true);
    // What a body-echo server sends back, and what a 1.0.0 receiver answered: neither proves a secret.
    expect(answer({ type: "webhook.verification", challenge: CHALLENGE })).toBe(false);
    expect(answer({ challenge: CHALLENGE })).toBe(false);
    expect(answer({ challenge: CHALLENGE, response: "" })).toBe(false);
    expect(answer({ challenge: CHALLENGE, response: 7 })).toBe(false);
    expect(answer({ challenge: CHALLENGE, response: "v".repeat(4097) })).toBe(false);
    expect(answer({ response: RESPONSE })).toBe(false);
    expect(answer({ received: true })).toBe(false);
    expect(answer({ challenge: 42, response: RESPONSE })).toBe(false);
  });

  it("documents a response that is the HMAC its words describe, computed here with node:crypto alone", () => {
    const answer = verification.responses["200"].content["application/json"].examples.answer;
    const [, webhookId, secret] = /`(msg_[^`]+)`.*`whsec_([^`]+)`/.exec(answer.summary) ?? [];
    if (webhookId === undefined || secret === undefined) throw new Error("the example names no id or secret");
    const mac = createHmac("sha256", Buffer.from(secret, "base64"))
      .update(`webhook.verification.${webhookId}.${answer.value.challenge}`)
      .digest("base64");
    expect(answer.value).toStrictEqual({ challenge: CHALLENGE, response: `v1,${mac}` });
    expect(openapi.components.schemas.VerificationResponse.examples).toStrictEqual([`v1,${mac}`]);
    expect(verification.description).toContain("`webhook.verification.<webhook-id>.<challenge>`");
  });
});
