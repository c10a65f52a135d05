import { WebhookSecretSchema } from "@plant-store/types";
import { z } from "zod";
import { type EndpointInputs, EndpointTokenSchema } from "./api-inputs.js";

/**
 * `POST /listen`: the local receiver's token and secrets, each generated when absent, and the event types
 * it is to receive (absent or null: every one), checked as an endpoint's subscriptions are.
 */
export function openListenInputSchema(eventTypes: EndpointInputs["EventTypesSchema"]) {
  return z.strictObject({
    token: EndpointTokenSchema.optional(),
    secrets: z.array(WebhookSecretSchema).min(1).max(10).optional(),
    eventTypes: eventTypes.optional(),
  });
}

/** `POST /listen/{session}/answers/{request}`: the local receiver's answer, or why there was none. */
export const ListenAnswerInputSchema = z.union([
  z.strictObject({
    status: z.int().min(200).max(599),
    headers: z.record(z.string(), z.string()).default({}),
    body: z.string().max(64 * 1024),
  }),
  z.strictObject({
    error: z.string().min(1).max(100),
    message: z.string().max(500).optional(),
  }),
]);

export const ListenSessionIdSchema = z.string().regex(/^lst_[0-9a-f]{32}$/, "is not a listen session id");
