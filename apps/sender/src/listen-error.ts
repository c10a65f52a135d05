/** `plant-store listen` could not start or lost its store; the message says which and why. */
export class ListenError extends Error {
  override readonly name = "ListenError";
  readonly code = "ERR_LISTEN";
}
