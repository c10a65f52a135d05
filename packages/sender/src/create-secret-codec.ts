import type { SecretsCipher } from "./secrets-cipher.js";
import { SecretsDecryptionError } from "./secrets-decryption-error.js";

const ENCRYPTED = "enc:";

export interface SecretCodec {
  /** The value as stored: encrypted when there is a cipher, else as given. */
  seal(text: string): string;
  /** The value as stored, read back: decrypted when it was encrypted, as is when it was stored plain. */
  open(stored: string): string;
  /** Whether `reencrypt` would change nothing for this stored value. */
  isCurrent(stored: string): boolean;
}

/**
 * How an outbox stores endpoint tokens and secrets. Values stored before a key was set read as plain text,
 * so an existing database keeps working and can be converted; an encrypted value with no cipher to open
 * it is an error, never a token sent as `enc:v1:...`.
 */
export function createSecretCodec(cipher?: SecretsCipher): SecretCodec {
  return {
    seal(text) {
      if (!cipher) return text;
      const sealed = cipher.encrypt(text);
      if (!sealed.startsWith(ENCRYPTED))
        throw new TypeError("A SecretsCipher's encrypt() must return text beginning with enc:");
      return sealed;
    },
    open(stored) {
      if (!stored.startsWith(ENCRYPTED)) return stored;
      if (!cipher)
        throw new SecretsDecryptionError(
          "Stored secrets are encrypted, and the store was opened without an encryption key",
        );
      return cipher.decrypt(stored);
    },
    isCurrent(stored) {
      if (!cipher) return !stored.startsWith(ENCRYPTED);
      return stored.startsWith(ENCRYPTED) && (cipher.isCurrent?.(stored) ?? false);
    },
  };
}
