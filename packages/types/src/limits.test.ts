import { openapi, vectors } from "@plant-store/spec";
import { describe, expect, it } from "vitest";
import {
  DELIVERY_TIMEOUT_MS,
  MAX_BODY_BYTES,
  MAX_PLANT_NAME_LENGTH,
  MAX_PLANT_TAG_LENGTH,
  MAX_SIGNATURE_HEADER_LENGTH,
  MAX_WEBHOOK_ID_LENGTH,
  MIN_SECRET_BYTES,
  TIMESTAMP_TOLERANCE_SECONDS,
} from "./limits.js";
import { PlantSchema } from "./plant.js";
import { generateWebhookSecret, InvalidWebhookSecretError, parseWebhookSecret } from "./webhook-secret.js";
import { WebhookSecretSchema } from "./webhook-secret-schema.js";

// Every limit is written in the document and enforced with the same number at runtime. The spec
// cannot import these constants (this package depends on it), so each sentence of the document that
// states a limit is compared with the same sentence rendered from the constants.
const webhook = openapi.webhooks["/plant/webhook"].post;
const responses = webhook.responses;
const schemas = openapi.components.schemas;
const MIB = 1024 * 1024;

describe("limits agree with the spec", () => {
  it("states every limit of the webhook in its Limits paragraph, each from a constant", () => {
    const limits =
      `Limits: the request body is at most ${MAX_BODY_BYTES / MIB} MiB (${MAX_BODY_BYTES} bytes); ` +
      `\`webhook-timestamp\` must be within ${TIMESTAMP_TOLERANCE_SECONDS} seconds of the receiver's clock in either direction; ` +
      `the Plant Store waits at most ${DELIVERY_TIMEOUT_MS / 1000} seconds for an answer per attempt; ` +
      `\`webhook-id\` is at most ${MAX_WEBHOOK_ID_LENGTH} and \`webhook-signature\` at most ${MAX_SIGNATURE_HEADER_LENGTH} characters; ` +
      `a plant's \`name\` is at most ${MAX_PLANT_NAME_LENGTH} and its \`tag\` at most ${MAX_PLANT_TAG_LENGTH} characters (Unicode code points); ` +
      `a signing secret decodes to at least ${MIN_SECRET_BYTES} bytes (the Plant Store generates ${parseWebhookSecret(generateWebhookSecret()).length}).`;
    const paragraph = webhook.description.split("\n\n").find((part) => part.startsWith("Limits:"));
    expect(paragraph).toBe(limits);
  });

  it("states the body limit in the 413 answer", () => {
    expect(responses["413"].description).toBe(
      `The body is larger than ${MAX_BODY_BYTES / MIB} MiB (${MAX_BODY_BYTES} bytes).`,
    );
    expect(responses["413"].content["application/json"].example.message).toBe(
      `Request body is larger than ${MAX_BODY_BYTES} bytes`,
    );
  });

  it("states the receiver's default body deadline (the store's per-attempt timeout) in the 408 answer", () => {
    expect(responses["408"].description).toContain(`(${DELIVERY_TIMEOUT_MS / 1000} seconds by default)`);
    expect(responses["408"].content["application/json"].example.message).toBe(
      `Request body was not received within ${DELIVERY_TIMEOUT_MS} ms`,
    );
  });

  it("states the timestamp tolerance on the webhook-timestamp header", () => {
    const timestamp = webhook.parameters.find((parameter) => parameter.name === "webhook-timestamp");
    expect(timestamp?.description).toContain(`more than ${TIMESTAMP_TOLERANCE_SECONDS} seconds`);
  });

  it("uses the plant's length limits in the Plant schema and its descriptions", () => {
    expect(schemas.Plant.properties.name.maxLength).toBe(MAX_PLANT_NAME_LENGTH);
    expect(schemas.Plant.properties.name.description).toContain(`1 to ${MAX_PLANT_NAME_LENGTH} characters`);
    expect(schemas.Plant.properties.tag.maxLength).toBe(MAX_PLANT_TAG_LENGTH);
    expect(schemas.Plant.properties.tag.description).toContain(`at most ${MAX_PLANT_TAG_LENGTH} characters`);
  });

  it("uses the header length limits in the header schemas and their descriptions", () => {
    expect(schemas.WebhookId.maxLength).toBe(MAX_WEBHOOK_ID_LENGTH);
    expect(schemas.WebhookId.description).toContain(`1 to ${MAX_WEBHOOK_ID_LENGTH} characters`);
    expect(schemas.WebhookSignature.maxLength).toBe(MAX_SIGNATURE_HEADER_LENGTH);
  });
});

describe("the spec's signed test vectors use the same limits", () => {
  it("put the tolerance boundaries exactly at TIMESTAMP_TOLERANCE_SECONDS and the failures one second past it", () => {
    const skew = Object.fromEntries(vectors.map((v) => [v.name, v.now - v.received.timestamp]));
    expect(skew["tolerance-boundary-past"]).toBe(TIMESTAMP_TOLERANCE_SECONDS);
    expect(skew["tolerance-boundary-future"]).toBe(-TIMESTAMP_TOLERANCE_SECONDS);
    for (const v of vectors) {
      const beyond = Math.abs(v.now - v.received.timestamp) > TIMESTAMP_TOLERANCE_SECONDS;
      expect(beyond, v.name).toBe(v.expected === "timestamp-too-old" || v.expected === "timestamp-too-new");
    }
  });

  it("sign only with secrets of at least MIN_SECRET_BYTES (v1; v1a keys are ed25519's 32 bytes)", () => {
    for (const v of vectors) {
      for (const secret of [...v.secrets, ...v.receiverSecrets]) {
        if (/^wh(sk|pk)_/.test(secret)) continue;
        expect(parseWebhookSecret(secret).length, v.name).toBeGreaterThanOrEqual(MIN_SECRET_BYTES);
      }
    }
  });
});

describe("limits are the ones enforced", () => {
  it("PlantSchema takes a name of MAX_PLANT_NAME_LENGTH code points and a tag of MAX_PLANT_TAG_LENGTH, one more of either is refused", () => {
    // Astral characters: two UTF-16 units each, one character by the contract (JSON Schema counts code points).
    const name = "🌿".repeat(MAX_PLANT_NAME_LENGTH);
    const tag = "t".repeat(MAX_PLANT_TAG_LENGTH);
    expect(PlantSchema.safeParse({ name, tag }).success).toBe(true);
    const long = PlantSchema.safeParse({ name: `${name}a`, tag: `${tag}a` });
    expect(long.error?.issues.map((issue) => issue.path.join("."))).toEqual(["name", "tag"]);
  });

  const secretOf = (bytes: number) => `whsec_${Buffer.alloc(bytes, 7).toString("base64")}`;

  it("parseWebhookSecret accepts MIN_SECRET_BYTES of key and refuses one byte fewer", () => {
    expect(parseWebhookSecret(secretOf(MIN_SECRET_BYTES))).toHaveLength(MIN_SECRET_BYTES);
    expect(() => parseWebhookSecret(secretOf(MIN_SECRET_BYTES - 1))).toThrow(InvalidWebhookSecretError);
    expect(() => parseWebhookSecret(secretOf(MIN_SECRET_BYTES - 1))).toThrow(
      `at least ${MIN_SECRET_BYTES} bytes`,
    );
  });

  it("WebhookSecretSchema draws the same line", () => {
    expect(WebhookSecretSchema.safeParse(secretOf(MIN_SECRET_BYTES)).success).toBe(true);
    const refused = WebhookSecretSchema.safeParse(secretOf(MIN_SECRET_BYTES - 1));
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toContain(`at least ${MIN_SECRET_BYTES} bytes`);
  });

  it("generated secrets clear the minimum", () => {
    // Made inside the test: module-level calls would make every mutant of the key parser "static"
    // for mutation testing, which then reruns every test for each of them.
    expect(parseWebhookSecret(generateWebhookSecret()).length).toBeGreaterThanOrEqual(MIN_SECRET_BYTES);
  });
});
