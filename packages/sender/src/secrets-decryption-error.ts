/**
 * A stored token or signing secret could not be decrypted: it was encrypted under a key the store was not
 * given, the key is wrong, or the value was altered. The message names the key id, never a key or a value.
 */
export class SecretsDecryptionError extends Error {
  readonly code = "ERR_SECRETS_DECRYPTION";
  override readonly name = "SecretsDecryptionError";
}
