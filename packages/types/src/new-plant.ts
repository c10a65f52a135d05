import { z } from "zod";
import { PlantSchema } from "./plant.js";

/**
 * The New Plant event payload. `z.int()` is the safe-integer range, which is what the spec's
 * int64 `id` is limited to, so no JavaScript consumer ever sees a rounded id.
 */
export const NewPlantSchema = PlantSchema.extend({
  id: z.int(),
});

export type NewPlant = z.infer<typeof NewPlantSchema>;
