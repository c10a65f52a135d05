import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MAX_SIGNATURE_HEADER_LENGTH,
  MAX_WEBHOOK_ID_LENGTH,
  WebhookIdSchema,
  WebhookSignatureSchema,
  WebhookTimestampSchema,
} from "./index.js";
import { webhookHeaderChecks } from "./webhook-header-checks.js";

// Header values as Node hands them over, plus the edges of every length limit and pattern.
const around = (length: number) =>
  fc
    .constantFrom(length - 1, length, length + 1)
    .chain((n) =>
      fc.oneof(
        fc.constant("a".repeat(Math.max(0, n))),
        fc.constant("🌼".repeat(Math.max(0, Math.ceil(n / 2)))),
        fc.constant(`${"x".repeat(Math.max(0, n - 1))} `),
        fc.constant("\ud800".repeat(Math.max(0, n))),
        fc.constant(`${"🌼".repeat(Math.max(0, n - 1))}\udc00`),
      ),
    );
const value = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "0",
    "-1",
    "1e3",
    "1.5",
    "０",
    "msg_ü",
    "\u0000",
    "\ud800",
    "v1,",
    "v1,a v1,b",
    "123\n",
  ),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.stringMatching(/^[\x20-\x7f]{0,30}$/),
  fc.stringMatching(/^[0-9]{0,20}$/),
  around(MAX_WEBHOOK_ID_LENGTH),
  around(MAX_SIGNATURE_HEADER_LENGTH),
);

describe("webhookHeaderChecks agree with the zod schemas of @plant-store/types", () => {
  it.each([
    ["id", webhookHeaderChecks.id, WebhookIdSchema],
    ["timestamp", webhookHeaderChecks.timestamp, WebhookTimestampSchema],
    ["signature", webhookHeaderChecks.signature, WebhookSignatureSchema],
  ] as const)("%s", (_name, check, schema) => {
    let accepted = 0;
    fc.assert(
      fc.property(value, (v) => {
        const expected = schema.safeParse(v).success;
        if (expected) accepted++;
        expect(check(v)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
    // The comparison means something only if both answers occurred.
    expect(accepted).toBeGreaterThan(0);
  });
});

describe("webhookHeaderChecks.signature counts code points past the limit", () => {
  it("counts a surrogate pair as one and a lone surrogate as one, in either order", () => {
    const max = MAX_SIGNATURE_HEADER_LENGTH;
    const check = webhookHeaderChecks.signature;
    expect(check("a".repeat(max))).toBe(true);
    expect(check("a".repeat(max + 1))).toBe(false);
    // Pairs: 2 units, 1 code point each.
    expect(check("🌼".repeat(max))).toBe(true);
    expect(check(`${"🌼".repeat(max)}a`)).toBe(false);
    // A lone low surrogate after a letter, a lone high one before a letter, and a low before a
    // high: never a pair, each one code point.
    expect(check(`${"a".repeat(max)}\udc00`)).toBe(false);
    expect(check(`\ud800${"a".repeat(max)}`)).toBe(false);
    expect(check(`${"a".repeat(max - 1)}\udc00\ud800`)).toBe(false);
    expect(check(`${"🌼".repeat(max - 1)}\ud800\udc00`)).toBe(true);
    expect(WebhookSignatureSchema.safeParse(`${"a".repeat(max)}\udc00`).success).toBe(false);
  });
});
