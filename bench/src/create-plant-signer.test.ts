import { createVerifier } from "@plant-store/receiver";
import { generateWebhookSecret } from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { createPlantSigner } from "./create-plant-signer.js";

describe("createPlantSigner", () => {
  const secret = generateWebhookSecret();
  const sign = createPlantSigner(secret, "bench-token");

  it("signs deliveries the reference library verifies", () => {
    const delivery = sign();
    expect(() => new Webhook(secret).verify(delivery.body, delivery.headers)).not.toThrow();
  });

  it("signs deliveries the receiver library accepts, with the bearer token", () => {
    const delivery = sign();
    const verify = createVerifier({ tokens: ["bench-token"], secrets: [secret] });
    const result = verify(delivery.body, delivery.headers);
    expect(result.ok).toBe(true);
  });

  it("never reuses a webhook id, so de-duplication does real work on every request", () => {
    const ids = new Set(Array.from({ length: 1000 }, () => sign().id));
    expect(ids.size).toBe(1000);
    const other = createPlantSigner(secret, "bench-token");
    expect(ids.has(other().id)).toBe(false);
  });

  it("sends a body of about 60 bytes, like the raw baseline of the issue", () => {
    const { length } = Buffer.from(sign().body);
    expect(length).toBeGreaterThanOrEqual(50);
    expect(length).toBeLessThanOrEqual(70);
  });
});
