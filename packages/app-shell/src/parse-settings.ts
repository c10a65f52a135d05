import type { z } from "zod";
import { ConfigError } from "./config-error.js";

/** Where a setting comes from: its flag and its environment variable. */
export interface SettingSource {
  flag: string;
  env: string;
}

/** `retryAfter` → `--retry-after` and `<PREFIX>RETRY_AFTER`: for apps whose names follow that rule. */
export function prefixedSources(envPrefix: string): (key: string) => SettingSource {
  return (key) => ({
    flag: `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
    env: `${envPrefix}${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`,
  });
}

/** One problem line: `--port (PLANT_STORE_PORT): must be 0 to 65535`. */
export function describeProblem(
  path: readonly PropertyKey[],
  message: string,
  sourceOf: (key: string) => SettingSource | undefined,
): string {
  const key = path[0];
  const source = key === undefined ? undefined : sourceOf(String(key));
  if (source === undefined) return message;
  // A list setting (repeatable flag, comma-separated variable): say which of its values is wrong.
  const where = typeof path[1] === "number" ? ` (value ${path[1] + 1})` : "";
  return `${source.flag} (${source.env})${where}: ${message}`;
}

/**
 * Validates raw flag and environment values once, at start-up, with the app's zod schema; throws one
 * `ConfigError` listing every problem.
 */
export function parseSettings<T extends z.ZodType>(
  schema: T,
  raw: unknown,
  sourceOf: (key: string) => SettingSource | undefined,
): z.output<T> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => describeProblem(issue.path, issue.message, sourceOf)),
  );
}
