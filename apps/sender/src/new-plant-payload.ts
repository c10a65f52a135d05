import { formatZodError } from "@plant-store/api";
import { type NewPlant, NewPlantSchema } from "@plant-store/types";
import { InvalidPlantError } from "./invalid-plant-error.js";

/**
 * Checks a plant against the contract's schema before anything is written, and answers how to build its
 * New Plant payload once the plant has its id: the queue sends whatever JSON it is given, so this is the
 * last point where a plant that receivers would refuse (and the store would retry for days) can be turned away.
 */
export function newPlantPayload(plant: Pick<NewPlant, "name" | "tag">): (id: number) => NewPlant {
  const build = (id: number): NewPlant =>
    plant.tag === undefined ? { id, name: plant.name } : { id, name: plant.name, tag: plant.tag };
  // Any safe integer is a valid id: checking with 1 checks the name and tag.
  const parsed = NewPlantSchema.safeParse(build(1));
  if (!parsed.success) throw new InvalidPlantError(formatZodError("Invalid plant", parsed.error));
  return build;
}
