import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { InvalidEncryptionKeyError, SecretsDecryptionError } from "../errors.js";
import type { SecretsCipher } from "../secrets-cipher.js";

export const ENCRYPTED_PREFIX = "enc:v1:";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface AesGcmCipherOptions {
  /**
   * 32-byte AES-256 keys. The first encrypts; every one decrypts, so a new key can go first while values
   * stored under the old one are still read (and `reencryptEndpoints` moves them over).
   */
  keys: readonly Uint8Array[];
}

/**
 * A key's id, stored with every value it encrypts: the first 48 bits of SHA-256 over the key, so the
 * operator names nothing and two keys cannot share an id by mistake. 48 bits of a hash say nothing
 * useful about a 256-bit random key.
 */
export function encryptionKeyId(key: Uint8Array): string {
  return createHash("sha256")
    .update("plant-store key id\0")
    .update(key)
    .digest()
    .subarray(0, 6)
    .toString("base64url");
}

/**
 * AES-256-GCM over node:crypto: `enc:v1:<keyId>:<iv>:<ciphertext>:<tag>`, each part base64url, a fresh
 * 96-bit IV per value, and the `enc:v1:<keyId>` header authenticated with the text, so neither the key id
 * nor the ciphertext can be altered without `decrypt` refusing.
 */
export function createAesGcmCipher(options: AesGcmCipherOptions): SecretsCipher {
  if (options.keys.length === 0) throw new InvalidEncryptionKeyError("At least one encryption key is needed");
  const keys = new Map<string, Buffer>();
  options.keys.forEach((key, index) => {
    if (key.byteLength !== KEY_BYTES)
      throw new InvalidEncryptionKeyError(
        `Encryption key ${index + 1} is ${key.byteLength} bytes; AES-256 needs ${KEY_BYTES}`,
      );
    keys.set(encryptionKeyId(key), Buffer.from(key));
  });
  const currentId = encryptionKeyId(options.keys[0] as Uint8Array);
  const current = keys.get(currentId) as Buffer;
  const header = (id: string) => `${ENCRYPTED_PREFIX}${id}`;

  return {
    encrypt(text) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", current, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(header(currentId)));
      const sealed = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
      return [header(currentId), iv, sealed, cipher.getAuthTag()]
        .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
        .join(":");
    },
    decrypt(text) {
      if (!text.startsWith(ENCRYPTED_PREFIX))
        throw new SecretsDecryptionError("Not a value this cipher encrypted (no enc:v1: prefix)");
      const parts = text.slice(ENCRYPTED_PREFIX.length).split(":");
      const [id, iv, sealed, tag] = parts;
      if (
        parts.length !== 4 ||
        id === undefined ||
        iv === undefined ||
        sealed === undefined ||
        tag === undefined
      )
        throw new SecretsDecryptionError("Malformed encrypted value");
      const key = keys.get(id);
      if (!key)
        throw new SecretsDecryptionError(
          `Stored secrets are encrypted under key ${id}, which is not among the keys given (${[...keys.keys()].join(", ")})`,
        );
      const ivBytes = Buffer.from(iv, "base64url");
      const tagBytes = Buffer.from(tag, "base64url");
      if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES)
        throw new SecretsDecryptionError(`Malformed encrypted value under key ${id}`);
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, ivBytes, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(header(id)));
        decipher.setAuthTag(tagBytes);
        return Buffer.concat([decipher.update(Buffer.from(sealed, "base64url")), decipher.final()]).toString(
          "utf8",
        );
      } catch {
        throw new SecretsDecryptionError(
          `A stored secret under key ${id} failed authentication: the key is wrong or the value was altered`,
        );
      }
    },
    isCurrent(text) {
      return text.startsWith(`${header(currentId)}:`);
    },
  };
}
