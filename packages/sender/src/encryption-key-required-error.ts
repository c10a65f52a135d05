/**
 * Thrown before anything is written when an outbox opened without a `secretsCipher` would store a
 * token or secret in plain text beside values that are encrypted: the store was set up with a key,
 * so every write must be made with it.
 */
export class EncryptionKeyRequiredError extends Error {
  readonly code = "ERR_ENCRYPTION_KEY_REQUIRED";
  override readonly name = "EncryptionKeyRequiredError";
}
