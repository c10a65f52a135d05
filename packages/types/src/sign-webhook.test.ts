import { vectors } from "@plant-store/spec";
import fc from "fast-check";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { computeSignature, signWebhook } from "./sign-webhook.js";
import { parseWebhookSecret } from "./webhook-secret.js";

describe("signWebhook", () => {
  it.each(vectors.map((v) => [v.name, v] as const))("reproduces vector %s", (_name, vector) => {
    const { id, timestamp, body, secrets } = vector;
    expect(signWebhook({ id, timestamp, body, secrets })).toBe(vector.signature);
  });

  it("signs a Buffer body and Buffer keys the same as a string body and whsec_ secrets", () => {
    const [vector] = vectors;
    if (vector === undefined) throw new Error("no vectors");
    const keys = vector.secrets.map(parseWebhookSecret);
    expect(
      signWebhook({
        id: vector.id,
        timestamp: vector.timestamp,
        body: Buffer.from(vector.body),
        secrets: keys,
      }),
    ).toBe(vector.signature);
  });

  it("gives one v1 signature per secret, in order", () => {
    const rotation = vectors.find((v) => v.secrets.length === 2);
    if (rotation === undefined) throw new Error("no rotation vector");
    const { id, timestamp, body, secrets } = rotation;
    const parts = signWebhook({ id, timestamp, body, secrets }).split(" ");
    expect(parts).toStrictEqual(
      secrets.map((s) => `v1,${computeSignature(parseWebhookSecret(s), id, timestamp, body)}`),
    );
  });

  it("is verified by the reference library for any id, body and key", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[\x21-\x7e]{1,64}$/),
        fc.string({ unit: "grapheme", maxLength: 200 }),
        fc.uint8Array({ minLength: 16, maxLength: 64 }),
        (id, body, key) => {
          const secret = `whsec_${Buffer.from(key).toString("base64")}`;
          const timestamp = Math.floor(Date.now() / 1000);
          const signature = signWebhook({ id, timestamp, body, secrets: [secret] });
          const headers = {
            "webhook-id": id,
            "webhook-timestamp": String(timestamp),
            "webhook-signature": signature,
          };
          expect(() => new Webhook(secret).verify(body, headers, { jsonParse: false })).not.toThrow();
          expect(signature).toBe(new Webhook(secret).sign(id, new Date(timestamp * 1000), body));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("changes when a single byte of the body changes", () => {
    const secrets = ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"];
    const a = signWebhook({ id: "msg_1", timestamp: 1, body: '{"id":1,"name":"a"}', secrets });
    const b = signWebhook({ id: "msg_1", timestamp: 1, body: '{"id":1,"name":"b"}', secrets });
    expect(a).not.toBe(b);
  });
});
