/**
 * Thrown by the signer for input it must not sign: a timestamp that is not whole non-negative
 * seconds (a fractional one would sign `id.161426533.5.body`), an id the receiver would refuse, a
 * missing body, no key, or a key that cannot sign. Never repeats a key.
 */
export class InvalidSignInputError extends Error {
  readonly code = "ERR_INVALID_SIGN_INPUT";
  override readonly name = "InvalidSignInputError";
}
