/** One field a payload schema refused: its path in the payload (`items.0.id`, or `""` for the whole) and why. */
export interface PayloadIssue {
  path: string;
  message: string;
}

/**
 * Thrown by `enqueue` on an outbox given a catalog when the payload does not satisfy its event type's
 * schema: refused before anything is written, rather than retried against every receiver for days.
 */
export class InvalidPayloadError extends Error {
  readonly code = "ERR_INVALID_PAYLOAD";
  override readonly name = "InvalidPayloadError";
  constructor(
    message: string,
    readonly eventType: string,
    readonly issues: readonly PayloadIssue[],
  ) {
    super(message);
  }
}
