import { type NewPlant, NewPlantSchema } from "@plant-store/types";
import { formatZodError } from "./format-zod-error.js";
import { InvalidPlantError } from "./invalid-plant-error.js";

/**
 * The New Plant payload for a stored plant, checked against the contract's schema before it is queued:
 * the queue sends whatever JSON it is given, so this is the last point where a plant that receivers would
 * refuse (and the store would retry for days) can be turned away.
 */
export function newPlantPayload(plant: {
  id: number;
  name: string;
  tag?: string | null | undefined;
}): NewPlant {
  const payload =
    plant.tag === undefined || plant.tag === null
      ? { id: plant.id, name: plant.name }
      : { id: plant.id, name: plant.name, tag: plant.tag };
  const parsed = NewPlantSchema.safeParse(payload);
  if (!parsed.success) throw new InvalidPlantError(formatZodError("Invalid plant", parsed.error));
  return payload;
}
