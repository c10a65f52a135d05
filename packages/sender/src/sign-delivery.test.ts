import { generateWebhookSecret } from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { signDelivery } from "./sign-delivery.js";

describe("signDelivery", () => {
  const body = JSON.stringify({ id: 7, name: "Monstera" });

  it("produces headers the reference standardwebhooks library verifies", () => {
    const secret = generateWebhookSecret();
    const headers = signDelivery({ webhookId: "msg_1", body, secrets: [secret], token: "tok" });
    expect(new Webhook(secret).verify(body, headers)).toEqual({ id: 7, name: "Monstera" });
    expect(headers.authorization).toBe("Bearer tok");
    expect(headers["content-type"]).toBe("application/json");
  });

  it("signs with every secret during rotation, so either secret verifies", () => {
    const [oldSecret, newSecret] = [generateWebhookSecret(), generateWebhookSecret()];
    const headers = signDelivery({ webhookId: "msg_2", body, secrets: [oldSecret, newSecret], token: "tok" });
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newSecret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
  });

  it("signs the given timestamp, so a retry at a later time gets a different signature", () => {
    const secrets = [generateWebhookSecret()];
    const now = Math.floor(Date.now() / 1000);
    const first = signDelivery({ webhookId: "msg_3", body, secrets, token: "t", timestamp: now });
    const later = signDelivery({ webhookId: "msg_3", body, secrets, token: "t", timestamp: now + 5 });
    expect(first["webhook-timestamp"]).toBe(String(now));
    expect(later["webhook-signature"]).not.toBe(first["webhook-signature"]);
  });
});
