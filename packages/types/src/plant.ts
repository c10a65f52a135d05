import { z } from "zod";
import { MAX_PLANT_NAME_LENGTH, MAX_PLANT_TAG_LENGTH } from "./limits.js";

/**
 * No NUL (U+0000): PostgreSQL text cannot hold it (`invalid byte sequence for encoding "UTF8":
 * 0x00`), nor can C strings, so a plant carrying one could be accepted and then never stored. The
 * same pattern as the spec's, so both say no to the same strings.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this refuses.
const withoutNul = () => z.string().regex(/^[^\u0000]*$/, "must not contain the NUL character (U+0000)");

/**
 * A plant in the store. Loose on purpose: later contract versions may add fields, and a
 * receiver must keep accepting payloads it does not fully know (the spec says so too).
 */
export const PlantSchema = z.looseObject({
  name: withoutNul().min(1).max(MAX_PLANT_NAME_LENGTH),
  tag: withoutNul().max(MAX_PLANT_TAG_LENGTH).optional(),
});

export type Plant = z.infer<typeof PlantSchema>;
