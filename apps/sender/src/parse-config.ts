import type { z } from "zod";
import { ConfigError } from "./config-error.js";

const flag = (key: string) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
const envName = (key: string) => `PLANT_STORE_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;

/** Validates raw flag/env values once, naming the flag and its environment variable for every problem. */
export function parseConfig<T extends z.ZodType>(schema: T, raw: unknown): z.infer<T> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => {
    const key = String(issue.path[0] ?? "");
    return key ? `  ${flag(key)} (${envName(key)}): ${issue.message}` : `  ${issue.message}`;
  });
  throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
}
