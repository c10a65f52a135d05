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
});
