import { randomBytes } from "node:crypto";
import { generateWebhookSecret } from "@plant-store/types";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidEncryptionKeyError, SecretsDecryptionError } from "../errors.js";
import { createAesGcmCipher, encryptionKeyId } from "./create-aes-gcm-cipher.js";

const FORMAT = /^enc:v1:([A-Za-z0-9_-]{8}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]*):([A-Za-z0-9_-]{22})$/;

function decryptError(run: () => unknown): SecretsDecryptionError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SecretsDecryptionError);
    expect((error as SecretsDecryptionError).code).toBe("ERR_SECRETS_DECRYPTION");
    return error as SecretsDecryptionError;
  }
  throw new Error("decrypt did not throw");
}

describe("createAesGcmCipher", () => {
  const key = randomBytes(32);
  const cipher = createAesGcmCipher({ keys: [key] });

  it("encrypts any text to enc:v1:<keyId>:<iv>:<ciphertext>:<tag> and decrypts it back", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        const sealed = cipher.encrypt(text);
        const parts = FORMAT.exec(sealed);
        expect(parts?.[1]).toBe(encryptionKeyId(key));
        expect(cipher.decrypt(sealed)).toBe(text);
      }),
    );
  });

  it("never shows the text, and uses a fresh IV for every value", () => {
    const secret = generateWebhookSecret();
    const once = cipher.encrypt(secret);
    const twice = cipher.encrypt(secret);
    expect(once).not.toBe(twice);
    expect(once.split(":")[3]).not.toBe(twice.split(":")[3]);
    for (const sealed of [once, twice]) {
      expect(sealed).not.toContain("whsec_");
      expect(sealed).not.toContain(secret.slice(6, 20));
      expect(Buffer.from(sealed.split(":")[4] as string, "base64url").toString("latin1")).not.toContain(
        "whsec",
      );
    }
  });

  it("refuses a value under another key with a typed error naming key ids, never a key or the text", () => {
    const other = randomBytes(32);
    const sealed = createAesGcmCipher({ keys: [other] }).encrypt("the-token-value");
    const error = decryptError(() => cipher.decrypt(sealed));
    expect(error.message).toContain(encryptionKeyId(other));
    expect(error.message).toContain(encryptionKeyId(key));
    for (const leaked of [
      "the-token-value",
      key.toString("base64"),
      key.toString("hex"),
      other.toString("base64"),
    ])
      expect(error.message).not.toContain(leaked);
  });

  it("refuses a value whose key id, IV, ciphertext or tag was altered", () => {
    const sealed = cipher.encrypt("the-token-value");
    const parts = sealed.split(":");
    const flip = (text: string) => {
      const bytes = Buffer.from(text, "base64url");
      bytes[0] = (bytes[0] ?? 0) ^ 1;
      return bytes.toString("base64url");
    };
    for (const index of [3, 4, 5]) {
      const altered = [...parts];
      altered[index] = flip(altered[index] as string);
      const error = decryptError(() => cipher.decrypt(altered.join(":")));
      expect(error.message).not.toContain("the-token-value");
    }
    // Relabelled as another key the cipher holds: that key cannot open it.
    const second = randomBytes(32);
    const relabelled = [...parts];
    relabelled[2] = encryptionKeyId(second);
    decryptError(() => createAesGcmCipher({ keys: [key, second] }).decrypt(relabelled.join(":")));
    decryptError(() => cipher.decrypt(`${sealed}:extra`));
    decryptError(() => cipher.decrypt("enc:v1:short"));
    decryptError(() => cipher.decrypt("plain-token"));
  });

  it("encrypts with the first key and decrypts with any, so keys can rotate", () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const before = createAesGcmCipher({ keys: [oldKey] }).encrypt("tok");
    const during = createAesGcmCipher({ keys: [newKey, oldKey] });
    expect(during.decrypt(before)).toBe("tok");
    expect(during.isCurrent?.(before)).toBe(false);
    const after = during.encrypt("tok");
    expect(during.isCurrent?.(after)).toBe(true);
    expect(after.split(":")[2]).toBe(encryptionKeyId(newKey));
    expect(createAesGcmCipher({ keys: [newKey] }).decrypt(after)).toBe("tok");
    decryptError(() => createAesGcmCipher({ keys: [oldKey] }).decrypt(after));
  });

  it("refuses keys that are not 32 bytes, and no keys, without showing them", () => {
    expect(() => createAesGcmCipher({ keys: [] })).toThrow(InvalidEncryptionKeyError);
    for (const bytes of [0, 16, 31, 33, 64]) {
      const bad = randomBytes(bytes);
      try {
        createAesGcmCipher({ keys: [randomBytes(32), bad] });
        throw new Error(`accepted a ${bytes}-byte key`);
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidEncryptionKeyError);
        expect((error as InvalidEncryptionKeyError).code).toBe("ERR_INVALID_ENCRYPTION_KEY");
        expect((error as Error).message).toContain(`key 2 is ${bytes} bytes`);
        if (bytes > 0) expect((error as Error).message).not.toContain(bad.toString("base64"));
      }
    }
  });
});
