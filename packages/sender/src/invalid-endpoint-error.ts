/** Thrown before anything is written when an endpoint's URL, token or secrets cannot be stored as given. */
export class InvalidEndpointError extends Error {
  readonly code = "ERR_INVALID_ENDPOINT";
  override readonly name = "InvalidEndpointError";
}
