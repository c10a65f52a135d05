import { WebhookError } from "../webhook-error.js";

/** A correctly signed delivery whose timestamp is too far from our clock: a possible replay. */
export class TimestampOutOfToleranceError extends WebhookError {
  override readonly name = "TimestampOutOfToleranceError";

  constructor(direction: "old" | "new", toleranceSeconds: number) {
    super(
      401,
      "ERR_TIMESTAMP_OUT_OF_TOLERANCE",
      `Webhook timestamp is too ${direction} (tolerance ${toleranceSeconds} seconds)`,
    );
  }
}
