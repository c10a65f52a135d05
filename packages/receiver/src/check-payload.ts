import type { WebhookDefinition } from "@plant-store/types";
import { InvalidPayloadError } from "./errors/invalid-payload-error.js";

/** The parsed body checked against its webhook's schema, naming every invalid field on failure. */
export function checkPayload<Payload>(
  schema: WebhookDefinition<Payload>["schema"],
  json: unknown,
  eventType: string,
): Payload {
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  throw new InvalidPayloadError(
    result.error.issues.map((issue) => ({
      path: issue.path.length === 0 ? "(body)" : issue.path.map(String).join("."),
      message: issue.message,
    })),
    eventType,
  );
}
