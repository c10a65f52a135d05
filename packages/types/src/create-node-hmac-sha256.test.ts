import fc from "fast-check";
import { beforeEach, describe, expect, it, vi } from "vitest";

// Wraps (does not replace) node:crypto, so a test can see when createHmac is used and take
// crypto.hash away, while the real functions still compute every result.
const seen = vi.hoisted(() => ({ createHmac: 0, withoutHash: false }));
vi.mock("node:crypto", async (importOriginal) => {
  const crypto = await importOriginal<typeof import("node:crypto")>();
  return {
    ...crypto,
    createHmac: (...args: Parameters<typeof crypto.createHmac>) => {
      seen.createHmac++;
      return crypto.createHmac(...args);
    },
    get hash() {
      return seen.withoutHash ? undefined : crypto.hash;
    },
  };
});

const { createNodeHmacSha256 } = await import("./create-node-hmac-sha256.js");
const realCrypto = await vi.importActual<typeof import("node:crypto")>("node:crypto");

const reference = (key: Uint8Array, prefix: string, body: string | Uint8Array) =>
  realCrypto.createHmac("sha256", key).update(prefix).update(body).digest("base64");

/** Keys of every length up to three SHA-256 blocks; prefixes and bodies of every kind and size. */
// Lengths drawn explicitly: fast-check's default size keeps arrays to a few elements.
const key = fc
  .integer({ min: 1, max: 200 })
  .chain((length) => fc.uint8Array({ minLength: length, maxLength: length }));
const text = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc.string({ unit: "grapheme", maxLength: 60 }),
  fc.string({ unit: "binary", maxLength: 60 }),
  fc.constantFrom("", "msg_2Vx.1700000000.", "é", "🌼", "\ud800"),
);
const body = fc.oneof(
  text,
  fc.uint8Array({ maxLength: 300 }),
  // Around the scratch buffer's bound (8,192 bytes), as bytes and as 1- and 3-byte UTF-8 text.
  fc.integer({ min: 8100, max: 8300 }).map((n) => new Uint8Array(n).fill(n % 251)),
  fc.integer({ min: 2700, max: 2800 }).map((n) => "€".repeat(n)),
  fc.integer({ min: 8100, max: 8300 }).map((n) => "a".repeat(n)),
);

describe("createNodeHmacSha256", () => {
  beforeEach(() => {
    seen.createHmac = 0;
    seen.withoutHash = false;
  });

  it("answers what createHmac answers, for any key, prefix and body, one message after another", () => {
    fc.assert(
      fc.property(key, fc.array(fc.tuple(text, body), { minLength: 1, maxLength: 4 }), (k, messages) => {
        const mac = createNodeHmacSha256(k);
        for (const [prefix, b] of messages) expect(mac(prefix, b)).toBe(reference(k, prefix, b));
      }),
      { numRuns: 400 },
    );
  });

  it("answers what createHmac answers for keys of 1, 32, 64, 65 and 200 bytes and messages of many lengths", () => {
    const prefixes = ["", "msg_2Vx.1700000000.", "é.", "🌼"];
    // Empty, multi-byte UTF-8, around one and two blocks, and around the longest message whose view is
    // kept (512 bytes); each length twice in a row with other content, so a kept view is hashed again.
    const bodies = [
      0, 1, 2, 40, 55, 56, 63, 64, 65, 119, 120, 128, 400, 440, 490, 495, 496, 497, 512, 600, 3000,
    ]
      .flatMap((n) => ["a".repeat(n), "b".repeat(n), new Uint8Array(n).fill(n % 256)])
      .concat(["é", "€🌼 ünïcode", "€".repeat(170), "🌼".repeat(120)]);
    for (const length of [1, 32, 64, 65, 200]) {
      const k = realCrypto.randomBytes(length);
      const mac = createNodeHmacSha256(k);
      for (const prefix of prefixes)
        for (const body of bodies)
          expect(mac(prefix, body), `key ${length}, ${prefix} + ${body.length}`).toBe(
            reference(k, prefix, body),
          );
    }
  });

  it("writes a prefix ending in half a surrogate pair apart from its body, as createHmac's update does", () => {
    const k = realCrypto.randomBytes(32);
    const mac = createNodeHmacSha256(k);
    // Joined, "\ud83c" + "\udf3c" would be one character (🌼, 4 bytes); written apart, two U+FFFD (6 bytes).
    for (const [prefix, body] of [
      ["x.\ud83c", "\udf3c"],
      ["\ud83c", "\udf3c rest"],
      ["x.\ud83c", "plain"],
      ["x.", "\udf3c"],
    ] as const)
      expect(mac(prefix, body)).toBe(reference(k, prefix, body));
  });

  it("builds the MAC from two one-shot digests for a message that fits, and uses createHmac past it", () => {
    const k = realCrypto.randomBytes(32);
    const mac = createNodeHmacSha256(k);
    const prefix = "msg_1.1700000000.";
    const fits = [
      '{"id":1,"name":"Fern"}',
      // Bytes count once each: 3,000 of them fit, though 3,000 characters of text might not.
      new Uint8Array(3000).fill(1),
      // Exactly the buffer's 8,192 bytes, with the prefix counted as text may need: 3 bytes a character.
      new Uint8Array(8192 - 3 * prefix.length).fill(2),
    ];
    for (const body of fits) {
      const before = seen.createHmac;
      expect(mac(prefix, body)).toBe(reference(k, prefix, body));
      expect(seen.createHmac, `a body of ${body.length}`).toBe(before);
    }
    const before = seen.createHmac;
    const large = new Uint8Array(8192 - 3 * prefix.length + 1).fill(7);
    expect(mac(prefix, large)).toBe(reference(k, prefix, large));
    expect(seen.createHmac).toBe(before + 1);
  });

  it("uses createHmac on a Node without crypto.hash (before 20.12)", () => {
    seen.withoutHash = true;
    const k = realCrypto.randomBytes(32);
    const mac = createNodeHmacSha256(k);
    expect(mac("p.", "body")).toBe(reference(k, "p.", "body"));
    expect(seen.createHmac).toBe(1);
  });
});
