import type { ComponentSchemaName } from "@plant-store/spec";
import type { z } from "zod";
import { AckSchema } from "../src/ack.js";
import { ErrorBodySchema } from "../src/error-body.js";
import { EventPageSchema, EventsExpiredSchema, PulledEventSchema } from "../src/event-page.js";
import { NewPlantSchema } from "../src/new-plant.js";
import { PlantSchema } from "../src/plant.js";
import { WebhookIdSchema, WebhookSignatureSchema, WebhookTimestampSchema } from "../src/webhook-headers.js";
import {
  VerificationChallengeSchema,
  VerificationResponseSchema,
  WebhookVerificationAnswerSchema,
  WebhookVerificationSchema,
} from "../src/webhook-verification.js";

/** Each zod schema next to the spec component it mirrors. */
export const contractSchemas: ReadonlyArray<readonly [ComponentSchemaName, z.ZodType]> = [
  ["Plant", PlantSchema],
  ["NewPlant", NewPlantSchema],
  ["Error", ErrorBodySchema],
  ["Ack", AckSchema],
  ["WebhookId", WebhookIdSchema],
  ["WebhookTimestamp", WebhookTimestampSchema],
  ["WebhookSignature", WebhookSignatureSchema],
  ["VerificationChallenge", VerificationChallengeSchema],
  ["VerificationResponse", VerificationResponseSchema],
  ["WebhookVerification", WebhookVerificationSchema],
  ["WebhookVerificationAnswer", WebhookVerificationAnswerSchema],
  ["PulledEvent", PulledEventSchema],
  ["EventPage", EventPageSchema],
  ["EventsExpired", EventsExpiredSchema],
];
