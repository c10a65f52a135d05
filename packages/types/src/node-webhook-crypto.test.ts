import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nodeWebhookCrypto } from "./node-webhook-crypto.js";

describe("nodeWebhookCrypto.hmacSha256", () => {
  it("equals node:crypto's createHmac for any key length (shorter, equal to and longer than a block) and body", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 200 }),
        fc.string({ unit: "grapheme", maxLength: 40 }),
        fc.oneof(fc.string({ unit: "grapheme", maxLength: 300 }), fc.uint8Array({ maxLength: 300 })),
        (key, prefix, body) => {
          const expected = createHmac("sha256", key)
            .update(prefix)
            .update(typeof body === "string" ? body : Buffer.from(body))
            .digest();
          const mac = nodeWebhookCrypto.hmacSha256(key);
          // Twice: the prepared key and the reused outer buffer must not carry state between calls.
          expect(Buffer.from(mac(prefix, body))).toStrictEqual(expected);
          expect(Buffer.from(mac(prefix, body))).toStrictEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});
