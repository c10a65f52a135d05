import { BearerTokenSchema, DELIVERY_TIMEOUT_MS, parseWebhookKey } from "@plant-store/types";
import { z } from "zod";

/** The message names the key's kind at most, never its value. */
function keyProblem(text: string): string | undefined {
  let type: string;
  try {
    type = parseWebhookKey(text).type;
  } catch (error) {
    return (error as Error).message;
  }
  if (type === "public")
    return "is a whpk_ public key, which can only verify: give the whsk_ signing key it belongs to";
  return undefined;
}

/** What `runReceiverCheck` accepts, validated once before anything is sent. */
export const CheckOptionsSchema = z.object({
  url: z.string().refine((text) => {
    try {
      return ["http:", "https:"].includes(new URL(text).protocol);
    } catch {
      return false;
    }
  }, "must be an http:// or https:// URL"),
  // Left out when the webhook checked asks for no token (see runReceiverCheck).
  token: BearerTokenSchema.optional(),
  secrets: z
    .array(
      z.string().superRefine((text, context) => {
        const problem = keyProblem(text);
        if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
      }),
    )
    .min(1, "at least one whsec_ secret or whsk_ signing key is needed to sign"),
  timeoutMs: z
    .int("must be a whole number of milliseconds")
    .min(1, "must be at least 1 ms")
    .max(DELIVERY_TIMEOUT_MS, `must be at most ${DELIVERY_TIMEOUT_MS} ms, the store's own limit`)
    .default(DELIVERY_TIMEOUT_MS),
});
