import type { z } from "zod";
import { invalidInput } from "../errors.js";
import { formatZodError } from "./format-zod-error.js";

/** What `root` names a problem of the whole request body as (a header or an id has no fields). */
export const BODY = "(body)";

/**
 * A request's input parsed with its schema, or a 400 naming every problem (`Invalid <what>: …`).
 * `root` names a problem of the whole value: `(body)` for a JSON body, `(query)` for a query string.
 */
export function parseInput<T extends z.ZodType>(
  schema: T,
  value: unknown,
  what: string,
  root?: string,
): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidInput(formatZodError(`Invalid ${what}`, result.error, root));
  return result.data;
}
