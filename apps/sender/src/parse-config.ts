import { parseSettings, prefixedSources } from "@plant-store/app-shell/settings";
import type { z } from "zod";

const sources = prefixedSources("PLANT_STORE_");

/** Validates raw flag/env values once, naming the flag and its environment variable for every problem. */
export function parseConfig<T extends z.ZodType>(schema: T, raw: unknown): z.output<T> {
  return parseSettings(schema, raw, sources);
}
