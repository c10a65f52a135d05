import { z } from "zod";

/**
 * A plant in the store. Loose on purpose: later contract versions may add fields, and a
 * receiver must keep accepting payloads it does not fully know (the spec says so too).
 */
export const PlantSchema = z.looseObject({
  name: z.string().min(1),
  tag: z.string().optional(),
});

export type Plant = z.infer<typeof PlantSchema>;
