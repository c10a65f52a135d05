import { SecretsDecryptionError } from "../errors.js";
import type { SecretsCipher } from "../secrets-cipher.js";

const ENCRYPTED = "enc:";
// A plain value that itself begins with `enc:` (a token may), stored without a cipher, is marked so that
// it is never taken for an encrypted one.
const ESCAPED = "enc:plain:";

export interface SecretCodec {
  /** Whether values are sealed under a key (the outbox was given a cipher). */
  readonly encrypts: boolean;
  /** The value as stored: encrypted when there is a cipher, else as given. */
  seal(text: string): string;
  /** The value as stored, read back: decrypted when it was encrypted, as is when it was stored plain. */
  open(stored: string): string;
  /** Whether `reencrypt` would change nothing for this stored value. */
  isCurrent(stored: string): boolean;
}

const isEncrypted = (stored: string) => stored.startsWith(ENCRYPTED) && !stored.startsWith(ESCAPED);

/**
 * How an outbox stores endpoint tokens and secrets. Values stored before a key was set read as plain text,
 * so an existing database keeps working and can be converted; an encrypted value with no cipher to open
 * it is an error, never a token sent as `enc:v1:...`.
 */
export function createSecretCodec(cipher?: SecretsCipher): SecretCodec {
  return {
    encrypts: cipher !== undefined,
    seal(text) {
      if (!cipher) return text.startsWith(ENCRYPTED) ? `${ESCAPED}${text}` : text;
      const sealed = cipher.encrypt(text);
      if (!isEncrypted(sealed))
        throw new TypeError(
          "A SecretsCipher's encrypt() must return text beginning with enc: (not enc:plain:)",
        );
      return sealed;
    },
    open(stored) {
      if (stored.startsWith(ESCAPED)) return stored.slice(ESCAPED.length);
      if (!isEncrypted(stored)) return stored;
      if (!cipher)
        throw new SecretsDecryptionError(
          "Stored secrets are encrypted, and the store was opened without an encryption key",
        );
      return cipher.decrypt(stored);
    },
    isCurrent(stored) {
      if (!cipher) return !isEncrypted(stored);
      return isEncrypted(stored) && (cipher.isCurrent?.(stored) ?? false);
    },
  };
}
