import type { z } from "zod";

/** Every problem of a failed parse in one line: `name: Too small…; tag: …`. */
export function formatZodError(prefix: string, error: z.ZodError): string {
  return `${prefix}: ${error.issues.map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`).join("; ")}`;
}
