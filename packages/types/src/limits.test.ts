import { openapi } from "@plant-store/spec";
import { describe, expect, it } from "vitest";
import {
  DELIVERY_TIMEOUT_MS,
  MAX_BODY_BYTES,
  MAX_SIGNATURE_HEADER_LENGTH,
  MAX_WEBHOOK_ID_LENGTH,
  TIMESTAMP_TOLERANCE_SECONDS,
} from "./limits.js";

// Every limit is written in the document and enforced with the same number at runtime.
const webhook = openapi.webhooks["/plant/webhook"].post;
const responses = webhook.responses;

describe("limits agree with the spec", () => {
  it("states the body limit in the webhook and in the 413 answer", () => {
    expect(webhook.description).toContain(`at most 1 MiB (${MAX_BODY_BYTES} bytes)`);
    expect(responses["413"].description).toContain(`${MAX_BODY_BYTES} bytes`);
    expect(responses["413"].content["application/json"].example.message).toContain(String(MAX_BODY_BYTES));
  });

  it("states the timestamp tolerance and the per-attempt timeout", () => {
    expect(webhook.description).toContain(`within ${TIMESTAMP_TOLERANCE_SECONDS} seconds`);
    expect(webhook.parameters[1].description).toContain(`more than ${TIMESTAMP_TOLERANCE_SECONDS} seconds`);
    expect(webhook.description).toContain(`at most ${DELIVERY_TIMEOUT_MS / 1000} seconds`);
  });

  it("uses the header length limits in the header schemas", () => {
    expect(openapi.components.schemas.WebhookId.maxLength).toBe(MAX_WEBHOOK_ID_LENGTH);
    expect(openapi.components.schemas.WebhookSignature.maxLength).toBe(MAX_SIGNATURE_HEADER_LENGTH);
  });

  it("states the smallest secret that parseWebhookSecret accepts", () => {
    expect(webhook.description).toContain("decodes to at least 16 bytes");
  });
});
