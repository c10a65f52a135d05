import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SecretsDecryptionError } from "../errors.js";
import { createAesGcmCipher } from "./create-aes-gcm-cipher.js";
import { createSecretCodec } from "./create-secret-codec.js";

describe("createSecretCodec", () => {
  const cipher = createAesGcmCipher({ keys: [randomBytes(32)] });

  it("stores values as given without a cipher, and reads them back", () => {
    const codec = createSecretCodec();
    expect(codec.seal("tok")).toBe("tok");
    expect(codec.open("tok")).toBe("tok");
    expect(codec.isCurrent("tok")).toBe(true);
  });

  it("encrypts with a cipher, and still reads values stored in plain text before the key was set", () => {
    const codec = createSecretCodec(cipher);
    const sealed = codec.seal('["whsec_abc"]');
    expect(sealed.startsWith("enc:v1:")).toBe(true);
    expect(codec.open(sealed)).toBe('["whsec_abc"]');
    expect(codec.open('["whsec_plain"]')).toBe('["whsec_plain"]');
    expect(codec.isCurrent(sealed)).toBe(true);
    expect(codec.isCurrent("plain-token")).toBe(false);
  });

  it("refuses to hand out an encrypted value when it has no cipher, instead of sending enc:v1:... as a token", () => {
    const sealed = cipher.encrypt("tok");
    expect(() => createSecretCodec().open(sealed)).toThrow(SecretsDecryptionError);
    expect(createSecretCodec().isCurrent(sealed)).toBe(false);
  });

  it("refuses a cipher whose output a store could not tell from plain text", () => {
    const codec = createSecretCodec({ encrypt: (text) => `rot:${text}`, decrypt: (text) => text.slice(4) });
    expect(() => codec.seal("tok")).toThrow(TypeError);
  });

  it("stores a plain token that itself begins with enc: so that it reads back as itself, with or without a key", () => {
    const plain = createSecretCodec();
    for (const token of ["enc:v1:abc:def:ghi:jkl", "enc:plain:x", "enc:"]) {
      const stored = plain.seal(token);
      expect(plain.open(stored)).toBe(token);
      expect(createSecretCodec(cipher).open(stored)).toBe(token);
      expect(plain.isCurrent(stored)).toBe(true);
      expect(createSecretCodec(cipher).isCurrent(stored)).toBe(false);
      const sealed = createSecretCodec(cipher).seal(token);
      expect(createSecretCodec(cipher).open(sealed)).toBe(token);
    }
  });
});
