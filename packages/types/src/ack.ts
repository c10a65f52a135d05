import { z } from "zod";

/** The body of a receiver's 200 answer. Informational: senders treat any 2xx as delivered. */
export const AckSchema = z.looseObject({
  received: z.literal(true),
  duplicate: z.boolean().optional(),
});

export type Ack = z.infer<typeof AckSchema>;
