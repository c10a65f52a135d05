import { z } from "zod";

const ON = new Set(["true", "1", "yes"]);
const OFF = new Set(["false", "0", "no", ""]);

/**
 * A boolean flag's setting: `true` when the flag was given, else the text of its environment variable.
 * Read explicitly because commander turns a boolean flag on whenever its variable exists, so
 * `PLANT_STORE_ALLOW_PRIVATE_TARGETS=false` used to switch the SSRF guard off. Anything that is not
 * clearly on or off is a configuration error rather than a guess.
 */
export const BooleanSetting = z
  .union([z.boolean(), z.string()])
  .optional()
  .transform((value, ctx) => {
    if (value === undefined) return false;
    if (typeof value === "boolean") return value;
    const text = value.trim().toLowerCase();
    if (ON.has(text)) return true;
    if (OFF.has(text)) return false;
    ctx.addIssue({ code: "custom", message: "must be true, 1 or yes (on), or false, 0, no or empty (off)" });
    return z.NEVER;
  });
