import { WebhookError } from "../webhook-error.js";

/** JSON that is not a valid `NewPlant`; the message names every bad field. */
export class InvalidPayloadError extends WebhookError {
  override readonly name = "InvalidPayloadError";

  readonly issues: readonly { path: string; message: string }[];
  constructor(issues: readonly { path: string; message: string }[]) {
    super(
      400,
      "ERR_INVALID_PAYLOAD",
      `Invalid NewPlant: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
    );
    this.issues = issues;
  }
}
