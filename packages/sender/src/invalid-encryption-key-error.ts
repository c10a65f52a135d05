/** An encryption key that is not 32 bytes, or no key at all. The message never repeats a key. */
export class InvalidEncryptionKeyError extends Error {
  readonly code = "ERR_INVALID_ENCRYPTION_KEY";
  override readonly name = "InvalidEncryptionKeyError";
}
