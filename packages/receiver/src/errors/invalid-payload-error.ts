import { NEW_PLANT_EVENT } from "@plant-store/types";
import { WebhookError } from "../webhook-error.js";

/**
 * JSON that its webhook's schema refuses; the message names every bad field. New Plant keeps the
 * name of its schema (`Invalid NewPlant: ...`), which the contract's examples quote; any other
 * webhook is named by its event type (`Invalid orderCreated: ...`).
 */
export class InvalidPayloadError extends WebhookError {
  override readonly name = "InvalidPayloadError";

  readonly issues: readonly { path: string; message: string }[];
  readonly eventType: string;
  constructor(issues: readonly { path: string; message: string }[], eventType: string = NEW_PLANT_EVENT) {
    super(
      400,
      "ERR_INVALID_PAYLOAD",
      `Invalid ${eventType === NEW_PLANT_EVENT ? "NewPlant" : eventType}: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
    );
    this.issues = issues;
    this.eventType = eventType;
  }
}
