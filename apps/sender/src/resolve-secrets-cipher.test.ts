import { randomBytes } from "node:crypto";
import { ConfigError } from "@plant-store/app-shell";
import { describe, expect, it } from "vitest";
import { resolveSecretsCipher } from "./resolve-secrets-cipher.js";

describe("resolveSecretsCipher", () => {
  const key = randomBytes(32);

  it("is absent without a setting", () => {
    expect(resolveSecretsCipher(undefined, {})).toBeUndefined();
    expect(resolveSecretsCipher("", { PLANT_STORE_ENCRYPTION_KEY: "" })).toBeUndefined();
  });

  it("reads a key as hex, base64 or base64url, the same key each way", () => {
    const sealed = resolveSecretsCipher(undefined, {
      PLANT_STORE_ENCRYPTION_KEY: key.toString("hex"),
    })?.encrypt("tok");
    for (const text of [
      key.toString("base64"),
      key.toString("base64url"),
      key.toString("hex").toUpperCase(),
    ]) {
      const cipher = resolveSecretsCipher(undefined, { PLANT_STORE_ENCRYPTION_KEY: text });
      expect(cipher?.decrypt(sealed as string)).toBe("tok");
    }
  });

  it("encrypts with the first of several keys and decrypts with any", () => {
    const other = randomBytes(32);
    const underOther = resolveSecretsCipher(undefined, {
      PLANT_STORE_ENCRYPTION_KEY: other.toString("hex"),
    })?.encrypt("tok");
    const both = resolveSecretsCipher(undefined, {
      PLANT_STORE_ENCRYPTION_KEY: ` ${key.toString("hex")} , ${other.toString("base64")} `,
    });
    expect(both?.decrypt(underOther as string)).toBe("tok");
    const fresh = both?.encrypt("tok") as string;
    expect(
      resolveSecretsCipher(undefined, { PLANT_STORE_ENCRYPTION_KEY: key.toString("hex") })?.decrypt(fresh),
    ).toBe("tok");
  });

  it("refuses keys of the wrong size or alphabet with a ConfigError naming the position, never the key", () => {
    for (const bad of [
      randomBytes(16).toString("hex"),
      randomBytes(31).toString("base64"),
      randomBytes(33).toString("base64"),
      `${"z".repeat(64)}`,
      "not-a-key!",
    ]) {
      try {
        resolveSecretsCipher(undefined, { PLANT_STORE_ENCRYPTION_KEY: `${key.toString("hex")},${bad}` });
        throw new Error(`accepted ${bad}`);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as Error).message).toMatch(/PLANT_STORE_ENCRYPTION_KEY: key [23] is not 32 bytes/);
        expect((error as Error).message).not.toContain(bad);
        expect((error as Error).message).not.toContain(key.toString("hex"));
      }
    }
  });
});
