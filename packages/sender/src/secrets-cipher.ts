/**
 * Encrypts endpoint tokens and signing secrets before an outbox stores them, and decrypts them as it
 * reads them back. `encrypt` must return text beginning with `enc:` (that is how a store tells an
 * encrypted value from one stored in plain text before a key was set); `decrypt` gets only such values.
 */
export interface SecretsCipher {
  encrypt(text: string): string;
  decrypt(text: string): string;
  /** Whether a stored value is already encrypted under the key `encrypt` uses (re-encryption skips it). */
  isCurrent?(text: string): boolean;
}
