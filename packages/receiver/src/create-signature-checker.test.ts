import { generateWebhookSecret, parseWebhookSecret } from "@plant-store/types";
import fc from "fast-check";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { createSignatureChecker } from "./create-signature-checker.js";
import { InvalidSignatureError } from "./errors/invalid-signature-error.js";

const secrets = [generateWebhookSecret(), generateWebhookSecret()];
const now = new Date("2026-06-01T12:00:00Z");
const check = createSignatureChecker({
  keys: secrets.map(parseWebhookSecret),
  toleranceSeconds: 300,
  now: () => now,
});

const webhookId = fc.stringMatching(/^[\x21-\x7e]{1,64}$/);
// UTF-8 bodies only: the reference library's sign() decodes a Buffer as UTF-8 first (lossily), so for
// other bytes it signs something else than the raw bytes we verify. JSON bodies are always UTF-8.
const body = fc.string({ unit: "binary", maxLength: 256 }).map((text) => Buffer.from(text, "utf8"));

function headers(id: string, signature: string) {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": signature,
  };
}

describe("createSignatureChecker", () => {
  it("accepts whatever the reference library signs, with any of the rotated secrets", () => {
    fc.assert(
      fc.property(webhookId, body, fc.constantFrom(...secrets), (id, bytes, secret) => {
        const signature = new Webhook(secret).sign(id, now, bytes);
        expect(check(bytes, headers(id, signature))).toEqual({
          webhookId: id,
          timestamp: now.getTime() / 1000,
        });
      }),
    );
  });

  it("refuses the signature once any byte of the body changes", () => {
    fc.assert(
      fc.property(
        webhookId,
        body.filter((b) => b.length > 0),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (id, bytes, at, flip) => {
          const signature = new Webhook(secrets[0] as string).sign(id, now, bytes);
          const tampered = Buffer.from(bytes);
          const index = at % tampered.length;
          tampered[index] = (tampered[index] as number) ^ flip;
          expect(() => check(tampered, headers(id, signature))).toThrow(InvalidSignatureError);
        },
      ),
    );
  });

  it("finds the matching signature among several and ignores other versions", () => {
    const bytes = Buffer.from('{"id":1,"name":"a"}');
    const good = new Webhook(secrets[1] as string).sign("msg_1", now, bytes);
    const foreign = new Webhook(generateWebhookSecret()).sign("msg_1", now, bytes);
    const header = `v1a,${good.slice(3)} ${foreign} ${good}`;
    expect(check(bytes, headers("msg_1", header)).webhookId).toBe("msg_1");
    expect(() => check(bytes, headers("msg_1", `v1a,${good.slice(3)} ${foreign}`))).toThrow(
      InvalidSignatureError,
    );
  });

  it("refuses a v1 value that Buffer.from would decode to the right bytes but is not canonical base64", () => {
    const bytes = Buffer.from('{"id":1,"name":"a"}');
    // An id whose signature has a `+` or `/`, so the base64url spelling differs from it.
    let id = "msg_0";
    let good = "";
    for (let i = 0; !/[+/]/.test(good); i++) {
      id = `msg_${i}`;
      good = new Webhook(secrets[0] as string).sign(id, now, bytes);
    }
    expect(check(bytes, headers(id, good)).webhookId).toBe(id);
    const value = good.slice(3);
    const last = value.charAt(42);
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const variants = [
      `${value}!!`,
      value.slice(0, 43),
      `${value}=`,
      `${value.slice(0, 20)}\t${value.slice(20)}`,
      value.replace(/\+/g, "-").replace(/\//g, "_"),
      // Same 32 bytes: the two bits the last character carries past byte 32 are not zero.
      `${value.slice(0, 42)}${alphabet.charAt(alphabet.indexOf(last) + 1)}=`,
    ];
    for (const variant of variants) {
      // Lenient decoding yields the very signature, so only the canonical-form check can refuse it.
      expect(Buffer.from(variant, "base64")).toEqual(Buffer.from(value, "base64"));
      expect(() => check(bytes, headers(id, `v1,${variant}`)), variant).toThrow(InvalidSignatureError);
    }
  });
});
