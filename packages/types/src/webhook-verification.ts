import { z } from "zod";
import {
  MAX_SIGNATURE_HEADER_LENGTH,
  MAX_VERIFICATION_CHALLENGE_LENGTH,
  MIN_VERIFICATION_CHALLENGE_LENGTH,
} from "./limits.js";

/**
 * The type of the Plant Store's verification request (its body's `type`, and its `webhook-event-type`
 * header). Not an event of the catalog: receivers answer it themselves, no handler sees it.
 */
export const WEBHOOK_VERIFICATION_TYPE = "webhook.verification";

/** The challenge: base64url characters (the store sends 32 random bytes, 43 characters). */
export const VerificationChallengeSchema = z
  .string()
  .min(MIN_VERIFICATION_CHALLENGE_LENGTH)
  .max(MAX_VERIFICATION_CHALLENGE_LENGTH)
  .regex(/^[A-Za-z0-9_-]+$/);

/**
 * The signed body of a verification request. Unknown fields are allowed, as in every body of the
 * contract, so the store can add some later.
 */
export const WebhookVerificationSchema = z.looseObject({
  type: z.literal(WEBHOOK_VERIFICATION_TYPE),
  challenge: VerificationChallengeSchema,
});

export type WebhookVerification = z.infer<typeof WebhookVerificationSchema>;

/**
 * An answer's proof of the endpoint's secret: space-separated `v1,<base64>` parts, one per `whsec_`
 * secret the receiver holds (`answerVerificationChallenge` makes it). Parts of other versions are
 * ignored, as in `webhook-signature`.
 */
export const VerificationResponseSchema = z.string().min(1).max(MAX_SIGNATURE_HEADER_LENGTH);

/**
 * The endpoint's 200 answer to a verification request: the challenge it was sent and the `response`
 * that proves it holds the endpoint's signing secret (an echo of the request has no such field).
 */
export const WebhookVerificationAnswerSchema = z.looseObject({
  challenge: VerificationChallengeSchema,
  response: VerificationResponseSchema,
});

export type WebhookVerificationAnswer = z.infer<typeof WebhookVerificationAnswerSchema>;
