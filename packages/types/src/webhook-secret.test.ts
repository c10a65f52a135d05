import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateWebhookSecret, InvalidWebhookSecretError, parseWebhookSecret } from "./webhook-secret.js";
import { WebhookSecretSchema } from "./webhook-secret-schema.js";

describe("parseWebhookSecret", () => {
  it("decodes the base64 after whsec_ to the key bytes", () => {
    const key = randomBytes(32);
    expect(parseWebhookSecret(`whsec_${key.toString("base64")}`)).toStrictEqual(new Uint8Array(key));
  });

  it("accepts a secret without the prefix, like the reference library", () => {
    const key = randomBytes(24);
    expect(parseWebhookSecret(key.toString("base64"))).toStrictEqual(new Uint8Array(key));
  });

  it("accepts base64 without its = padding, as the Python library and npm standardwebhooks do", () => {
    const key = randomBytes(32);
    const unpadded = key.toString("base64").replace(/=+$/, "");
    expect(unpadded).not.toMatch(/=/);
    expect(parseWebhookSecret(`whsec_${unpadded}`)).toStrictEqual(new Uint8Array(key));
  });

  it.each([
    ["empty", ""],
    ["only the prefix", "whsec_"],
    ["not base64", "whsec_not base64!!"],
    ["base64 of an impossible length", "whsec_AAAAAAAAAAAAAAAAAAAAAAAAA"],
    ["a whpk_ public key", `whpk_${Buffer.alloc(32, 1).toString("base64")}`],
    ["a 15-byte key", `whsec_${Buffer.alloc(15, 1).toString("base64")}`],
  ])("refuses %s with a coded error that does not repeat the secret", (_what, secret) => {
    let thrown: unknown;
    try {
      parseWebhookSecret(secret);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidWebhookSecretError);
    const error = thrown as InvalidWebhookSecretError;
    expect(error.code).toBe("ERR_INVALID_WEBHOOK_SECRET");
    expect(error.name).toBe("InvalidWebhookSecretError");
    if (secret.length > "whsec_".length) expect(error.message).not.toContain(secret.slice("whsec_".length));
  });

  it("says a whsk_ or whpk_ key is not a v1 secret", () => {
    for (const key of [
      `whpk_${Buffer.alloc(32, 1).toString("base64")}`,
      `whsk_${Buffer.alloc(32, 1).toString("base64")}`,
    ]) {
      expect(() => parseWebhookSecret(key)).toThrow("Webhook secret must be whsec_ followed by base64");
    }
  });

  it("accepts a 16-byte key, the documented minimum", () => {
    expect(parseWebhookSecret(`whsec_${Buffer.alloc(16, 7).toString("base64")}`)).toHaveLength(16);
  });
});

describe("generateWebhookSecret", () => {
  it("makes whsec_ secrets of 32 random bytes", () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(parseWebhookSecret(secret)).toHaveLength(32);
  });

  it("never repeats itself", () => {
    const secrets = new Set(Array.from({ length: 100 }, generateWebhookSecret));
    expect(secrets.size).toBe(100);
  });

  it("makes secrets the reference library accepts and signs with the same key", () => {
    const secret = generateWebhookSecret();
    const signature = new Webhook(secret).sign("msg_1", new Date(1_767_225_600_000), "{}");
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });
});

describe("WebhookSecretSchema", () => {
  it("accepts a whsk_ signing key and refuses a whpk_ public key (it cannot sign)", () => {
    expect(WebhookSecretSchema.safeParse(`whsk_${Buffer.alloc(32, 3).toString("base64")}`).success).toBe(
      true,
    );
    expect(WebhookSecretSchema.safeParse(`whpk_${Buffer.alloc(32, 3).toString("base64")}`).success).toBe(
      false,
    );
  });

  it("accepts a generated secret and refuses a short one without echoing it", () => {
    expect(WebhookSecretSchema.safeParse(generateWebhookSecret()).success).toBe(true);
    const short = `whsec_${Buffer.from("short-key").toString("base64")}`;
    const result = WebhookSecretSchema.safeParse(short);
    expect(result.success).toBe(false);
    expect(JSON.stringify(result.error?.issues)).not.toContain(short.slice(6));
  });
});
