import type { z } from "zod";

/**
 * Every problem of a failed parse in one line: `name: Too small…; tag: …`. A problem of the whole value
 * is named `root` (`(body)` for a request body); without one it is the message alone, as for a header
 * or a path parameter, which have no fields.
 */
export function formatZodError(prefix: string, error: z.ZodError, root?: string): string {
  const where = (issue: z.core.$ZodIssue) => {
    const path = issue.path.join(".") || root;
    return path === undefined ? "" : `${path}: `;
  };
  return `${prefix}: ${error.issues.map((issue) => `${where(issue)}${issue.message}`).join("; ")}`;
}
