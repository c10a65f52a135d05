import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodeBase64, encodeBase64, isBase64 } from "./base64.js";
import { MIN_SECRET_BYTES } from "./limits.js";
import { parseWebhookKey } from "./webhook-key.js";
import { InvalidWebhookSecretError } from "./webhook-secret-error.js";

const b64 = (bytes: Uint8Array | number, fill = 1) =>
  Buffer.from(typeof bytes === "number" ? Buffer.alloc(bytes, fill) : bytes).toString("base64");

function refusal(text: unknown): InvalidWebhookSecretError {
  try {
    parseWebhookKey(text as string);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidWebhookSecretError);
    return error as InvalidWebhookSecretError;
  }
  throw new Error(`accepted ${String(text)}`);
}

describe("isBase64", () => {
  it("accepts base64 with its padding, and without it where the length allows", () => {
    for (let n = 1; n <= 12; n++) {
      const padded = b64(randomBytes(n));
      expect(isBase64(padded), padded).toBe(true);
      expect(isBase64(padded.replace(/=+$/, "")), padded).toBe(true);
    }
    expect(isBase64("AA==")).toBe(true);
    expect(isBase64("AAA=")).toBe(true);
    expect(isBase64("+/9z")).toBe(true);
  });

  it("refuses any character outside the alphabet anywhere, so nothing around the base64 is silently dropped", () => {
    const good = b64(16);
    for (const bad of [
      `!${good}`,
      `${good}!`,
      ` ${good}`,
      `${good} `,
      `${good}\n`,
      `a${good}`.replace("a", "-"),
    ]) {
      expect(isBase64(bad), JSON.stringify(bad)).toBe(false);
    }
    // Junk in a string whose length alone would pass: only the anchors refuse it.
    for (const bad of ["!AAA", "AAA!", "-AAA", "!AA=", "AA\n="])
      expect(isBase64(bad), JSON.stringify(bad)).toBe(false);
    expect(isBase64("AA_A")).toBe(false);
    expect(isBase64("AA-A")).toBe(false);
    expect(isBase64("")).toBe(false);
  });

  it("refuses padding that is misplaced, too long or on the wrong length", () => {
    for (const bad of [
      "A===",
      "AA=A",
      "=AAA",
      "====",
      "AAAAA=",
      "AAAAAA=",
      "AAAAAAA==",
      "A=",
      "A",
      "AAAAA",
    ]) {
      expect(isBase64(bad), bad).toBe(false);
    }
    // Three characters and one `=`, two and two: the two legal paddings.
    expect(isBase64("AAA=")).toBe(true);
    expect(isBase64("AA==")).toBe(true);
    // Unpadded lengths 2 and 3 (mod 4) carry whole bytes; 1 (mod 4) cannot.
    expect(isBase64("AA")).toBe(true);
    expect(isBase64("AAA")).toBe(true);
    expect(isBase64("AAAAAA")).toBe(true);
  });
});

describe("decodeBase64 and encodeBase64", () => {
  it("agree with Buffer on every length, padded or not", () => {
    for (let n = 0; n <= 40; n++) {
      const bytes = new Uint8Array(randomBytes(n));
      const text = Buffer.from(bytes).toString("base64");
      expect(encodeBase64(bytes)).toBe(text);
      expect(decodeBase64(text)).toStrictEqual(bytes);
      expect(decodeBase64(text.replace(/=+$/, ""))).toStrictEqual(bytes);
    }
    expect(decodeBase64("/+8=")).toStrictEqual(Uint8Array.from([0xff, 0xef]));
  });
});

describe("parseWebhookKey", () => {
  it("reads whsec_ and unprefixed text as a v1 secret, down to MIN_SECRET_BYTES", () => {
    const key = new Uint8Array(randomBytes(MIN_SECRET_BYTES));
    expect(parseWebhookKey(`whsec_${b64(key)}`)).toStrictEqual({ scheme: "v1", type: "secret", key });
    expect(parseWebhookKey(b64(key))).toStrictEqual({ scheme: "v1", type: "secret", key });
    expect(refusal(`whsec_${b64(MIN_SECRET_BYTES - 1)}`).message).toBe(
      `Webhook secret must decode to at least ${MIN_SECRET_BYTES} bytes`,
    );
  });

  it("reads a whsk_ key of 32 bytes as a seed alone, and of 64 as the seed and its public key", () => {
    const seed = new Uint8Array(randomBytes(32));
    const publicKey = new Uint8Array(randomBytes(32));
    expect(parseWebhookKey(`whsk_${b64(seed)}`)).toStrictEqual({ scheme: "v1a", type: "signing", seed });
    const both = parseWebhookKey(`whsk_${b64(Buffer.concat([seed, publicKey]))}`);
    expect(both).toMatchObject({ scheme: "v1a", type: "signing" });
    expect(both.type === "signing" && [both.seed, both.publicKey]).toStrictEqual([seed, publicKey]);
  });

  it("refuses a whsk_ key of any other length, naming what it must be", () => {
    for (const length of [0, 16, 31, 33, 48, 63, 65, 96]) {
      const error = refusal(`whsk_${b64(length)}`);
      expect(error.message, String(length)).toBe(
        length === 0
          ? "Webhook signing key (whsk_) must be base64 after its prefix"
          : "Webhook signing key (whsk_) must decode to a 32-byte ed25519 seed, or the seed and its 32-byte public key",
      );
    }
  });

  it("reads a whpk_ key of exactly 32 bytes as a v1a public key", () => {
    const publicKey = new Uint8Array(randomBytes(32));
    expect(parseWebhookKey(`whpk_${b64(publicKey)}`)).toStrictEqual({
      scheme: "v1a",
      type: "public",
      publicKey,
    });
    for (const length of [16, 31, 33, 64]) {
      expect(refusal(`whpk_${b64(length)}`).message).toBe(
        "Webhook public key (whpk_) must decode to 32 bytes",
      );
    }
  });

  it("says which kind of key is not base64, without repeating it", () => {
    const junk = "not base64!";
    expect(refusal(`whsk_${junk}`).message).toBe(
      "Webhook signing key (whsk_) must be base64 after its prefix",
    );
    expect(refusal(`whpk_${junk}`).message).toBe(
      "Webhook public key (whpk_) must be base64 after its prefix",
    );
    expect(refusal(`whsec_${junk}`).message).toBe("Webhook secret must be base64 after its prefix");
    expect(refusal(`whsec_${b64(32)}!`).message).toBe("Webhook secret must be base64 after its prefix");
    // A prefix is a prefix: the same base64 with junk first is not a secret.
    expect(refusal(`xwhsec_${b64(32)}`).message).toBe("Webhook secret must be base64 after its prefix");
  });

  it("refuses the empty string and non-strings", () => {
    for (const value of ["", undefined, null, 42, new Uint8Array(32)]) {
      expect(refusal(value).message).toBe("Webhook secret must be a non-empty string");
    }
  });
});
