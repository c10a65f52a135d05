import { z } from "zod";

/** The body of every error answer: `{ error: <HTTP status>, message }`. */
export const ErrorBodySchema = z.looseObject({
  error: z.int32(),
  message: z.string(),
});

export type ErrorBody = z.infer<typeof ErrorBodySchema>;
