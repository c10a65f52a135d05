import { openapi } from "@plant-store/spec";
import { describe, expect, it } from "vitest";
import {
  MAX_VERIFICATION_CHALLENGE_LENGTH,
  MIN_VERIFICATION_CHALLENGE_LENGTH,
  VERIFICATION_TIMEOUT_MS,
} from "./limits.js";
import { PLANT_STORE_WEBHOOKS } from "./plant-store-webhooks.js";
import { createWebhookCatalog } from "./webhook-catalog.js";
import {
  WEBHOOK_VERIFICATION_TYPE,
  WebhookVerificationAnswerSchema,
  WebhookVerificationSchema,
} from "./webhook-verification.js";

const CHALLENGE = "q3TjW9y0bX8c1n5Lr2V6pK4sH7dQeA0fZmGuIwYoN1E";
const RESPONSE = "v1,cqbHE0dtukBWoMkU/aDNM5OpiP5TNcvKcKDAerYYGQE=";
const verification = openapi.components.pathItems.WebhookVerification.post;

describe("WebhookVerificationSchema", () => {
  it("takes the store's body, and unknown fields beside it", () => {
    const body = { type: WEBHOOK_VERIFICATION_TYPE, challenge: CHALLENGE };
    expect(WebhookVerificationSchema.parse(body)).toEqual(body);
    expect(WebhookVerificationSchema.parse({ ...body, later: true })).toEqual({ ...body, later: true });
  });

  it.each([
    ["another type", { type: "newPlant", challenge: CHALLENGE }],
    ["no type", { challenge: CHALLENGE }],
    ["no challenge", { type: WEBHOOK_VERIFICATION_TYPE }],
    ["a number", { type: WEBHOOK_VERIFICATION_TYPE, challenge: 7 }],
    ["a challenge one too short", { type: WEBHOOK_VERIFICATION_TYPE, challenge: "a".repeat(15) }],
    ["a challenge one too long", { type: WEBHOOK_VERIFICATION_TYPE, challenge: "a".repeat(257) }],
    ["characters outside base64url", { type: WEBHOOK_VERIFICATION_TYPE, challenge: `${CHALLENGE}=` }],
    ["a New Plant", { id: 1, name: "Monstera deliciosa" }],
  ])("refuses %s", (_name, body) => {
    expect(WebhookVerificationSchema.safeParse(body).success).toBe(false);
  });

  it("takes challenges of exactly the shortest and longest length", () => {
    for (const length of [MIN_VERIFICATION_CHALLENGE_LENGTH, MAX_VERIFICATION_CHALLENGE_LENGTH]) {
      const body = { type: WEBHOOK_VERIFICATION_TYPE, challenge: "-".repeat(length) };
      expect(WebhookVerificationSchema.safeParse(body).success).toBe(true);
    }
  });
});

describe("WebhookVerificationAnswerSchema", () => {
  it("takes the challenge with its response and ignores other fields", () => {
    expect(
      WebhookVerificationAnswerSchema.parse({ challenge: CHALLENGE, response: RESPONSE, ok: 1 }),
    ).toEqual({
      challenge: CHALLENGE,
      response: RESPONSE,
      ok: 1,
    });
    expect(WebhookVerificationAnswerSchema.safeParse({ received: true }).success).toBe(false);
  });

  it("refuses what an echo server sends back, and the challenge alone (contract 1.0.0's answer)", () => {
    const echo = { type: WEBHOOK_VERIFICATION_TYPE, challenge: CHALLENGE };
    expect(WebhookVerificationAnswerSchema.safeParse(echo).success).toBe(false);
    expect(WebhookVerificationAnswerSchema.safeParse({ challenge: CHALLENGE }).success).toBe(false);
    expect(WebhookVerificationAnswerSchema.safeParse({ challenge: CHALLENGE, response: "" }).success).toBe(
      false,
    );
  });
});

describe("the verification request in the contract and in code", () => {
  it("is not an event type of the contract's catalog (no handler is expected for it)", () => {
    expect(createWebhookCatalog(openapi).eventTypes).toEqual(["newPlant"]);
    expect(PLANT_STORE_WEBHOOKS.has(WEBHOOK_VERIFICATION_TYPE)).toBe(false);
  });

  it("names the same type in the document as in code", () => {
    const eventType = verification.parameters.find((p) => p.name === "webhook-event-type");
    expect(eventType?.schema).toStrictEqual({ type: "string", const: WEBHOOK_VERIFICATION_TYPE });
    expect(openapi.components.schemas.WebhookVerification.properties.type.const).toBe(
      WEBHOOK_VERIFICATION_TYPE,
    );
  });

  it("states the answer time and the challenge's lengths from the constants", () => {
    const seconds = `within ${VERIFICATION_TIMEOUT_MS / 1000} seconds`;
    expect(verification.description).toContain(seconds);
    expect(openapi.webhooks["/plant/webhook"].post.description).toContain(seconds);
    expect(openapi.components.schemas.VerificationChallenge.description).toContain(
      `${MIN_VERIFICATION_CHALLENGE_LENGTH} to ${MAX_VERIFICATION_CHALLENGE_LENGTH} base64url characters`,
    );
  });
});
