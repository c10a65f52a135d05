/** Thrown when a store operation names an endpoint that does not exist. */
export class EndpointNotFoundError extends Error {
  readonly code = "ERR_ENDPOINT_NOT_FOUND";
  override readonly name = "EndpointNotFoundError";
}
