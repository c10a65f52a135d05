/** Thrown when an endpoint would sign with more than `MAX_ENDPOINT_SECRETS` secrets: drop old ones first. */
export class TooManySecretsError extends Error {
  readonly code = "ERR_TOO_MANY_SECRETS";
  override readonly name = "TooManySecretsError";
}
