import { createPublicKey, verify } from "node:crypto";
import {
  createWebhookVerifier,
  generateWebhookKeyPair,
  generateWebhookSecret,
  InvalidSignInputError,
} from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
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

  it("signs under svix-* names when asked, the same signature the svix library verifies, with no webhook-* signature headers", () => {
    const secret = generateWebhookSecret();
    const timestamp = Math.floor(Date.now() / 1000);
    const input = { webhookId: "msg_svix", body, secrets: [secret], token: "tok", timestamp };
    const svix = signDelivery({ ...input, signatureHeaders: "svix" });
    const standard = signDelivery(input);
    expect(svix["svix-signature"]).toBe(standard["webhook-signature"]);
    expect(svix["svix-id"]).toBe("msg_svix");
    expect(svix["svix-timestamp"]).toBe(String(timestamp));
    expect(Object.keys(svix).sort()).toEqual([
      "authorization",
      "content-type",
      "svix-id",
      "svix-signature",
      "svix-timestamp",
    ]);
    expect(() => new SvixWebhook(secret).verify(body, svix)).not.toThrow();
    expect(() => new SvixWebhook(generateWebhookSecret()).verify(body, svix)).toThrow();
    // The standard names stay what the Standard Webhooks reference library reads.
    expect(
      new Webhook(secret).verify(body, signDelivery({ ...input, signatureHeaders: "standard" })),
    ).toEqual({
      id: 7,
      name: "Monstera",
    });
  });

  it("sends the endpoint's static headers beside the signed ones, which they cannot replace", () => {
    const secret = generateWebhookSecret();
    const headers = signDelivery({
      webhookId: "msg_static",
      body,
      secrets: [secret],
      token: "tok",
      headers: { "x-api-key": "k", "content-type": "text/plain", "webhook-id": "msg_forged" },
    });
    expect((headers as Record<string, string>)["x-api-key"]).toBe("k");
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["webhook-id"]).toBe("msg_static");
    expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
  });

  it("signs with every secret during rotation, so either secret verifies", () => {
    const [oldSecret, newSecret] = [generateWebhookSecret(), generateWebhookSecret()];
    const headers = signDelivery({ webhookId: "msg_2", body, secrets: [oldSecret, newSecret], token: "tok" });
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newSecret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
  });

  it("signs with the list's keys as they are now, when the same list is changed in place", () => {
    const [first, second] = [generateWebhookSecret(), generateWebhookSecret()];
    const secrets = [first];
    signDelivery({ webhookId: "msg_5", body, secrets });
    secrets[0] = second;
    const headers = signDelivery({ webhookId: "msg_5", body, secrets });
    expect(() => new Webhook(second).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(first).verify(body, headers)).toThrow();
    secrets.push(first);
    const both = signDelivery({ webhookId: "msg_5", body, secrets });
    expect(both["webhook-signature"].split(" ")).toHaveLength(2);
    expect(() => new Webhook(first).verify(body, both)).not.toThrow();
  });

  it("signs the given timestamp, so a retry at a later time gets a different signature", () => {
    const secrets = [generateWebhookSecret()];
    const now = Math.floor(Date.now() / 1000);
    const first = signDelivery({ webhookId: "msg_3", body, secrets, token: "t", timestamp: now });
    const later = signDelivery({ webhookId: "msg_3", body, secrets, token: "t", timestamp: now + 5 });
    expect(first["webhook-timestamp"]).toBe(String(now));
    expect(later["webhook-signature"]).not.toBe(first["webhook-signature"]);
  });

  it("signs v1a with a whsk_ key, which its whpk_ key and an independent ed25519 check accept", () => {
    const pair = generateWebhookKeyPair();
    const secret = generateWebhookSecret();
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = signDelivery({
      webhookId: "msg_4",
      body,
      secrets: [secret, pair.signingKey],
      token: "t",
      timestamp,
    });
    const [v1, v1a] = headers["webhook-signature"].split(" ");
    expect(v1).toMatch(/^v1,/);
    expect(v1a).toMatch(/^v1a,/);
    const raw = Buffer.from(pair.publicKey.slice("whpk_".length), "base64");
    const key = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") },
      format: "jwk",
    });
    const signed = Buffer.from(`msg_4.${timestamp}.${body}`);
    expect(verify(null, signed, key, Buffer.from((v1a as string).slice(4), "base64"))).toBe(true);
    const check = createWebhookVerifier({ secrets: [pair.publicKey] });
    const received = { id: "msg_4", timestamp: String(timestamp), signature: headers["webhook-signature"] };
    expect(check(body, received)).toEqual({ webhookId: "msg_4", timestamp });
    // The v1 signature still verifies for receivers that hold only the whsec_ secret.
    expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
  });

  it("refuses a fractional timestamp or a whpk_ public key with InvalidSignInputError", () => {
    const secrets = [generateWebhookSecret()];
    expect(() => signDelivery({ webhookId: "msg_5", body, secrets, token: "t", timestamp: 1.5 })).toThrow(
      InvalidSignInputError,
    );
    const { publicKey } = generateWebhookKeyPair();
    expect(() => signDelivery({ webhookId: "msg_5", body, secrets: [publicKey], token: "t" })).toThrow(
      InvalidSignInputError,
    );
  });
});
