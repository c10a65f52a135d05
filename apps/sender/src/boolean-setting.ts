import { z } from "zod";

/**
 * A boolean flag's setting: `true` when the flag was given, else the text of its environment variable.
 * Read explicitly because commander turns a boolean flag on whenever its variable exists, so
 * `PLANT_STORE_ALLOW_PRIVATE_TARGETS=false` used to switch the SSRF guard off. Anything that is not
 * clearly on or off is a configuration error rather than a guess.
 */
export const BooleanSetting = z
  .union(
    [
      z.boolean(),
      z
        .string()
        .trim()
        .pipe(z.stringbool({ truthy: ["true", "1", "yes"], falsy: ["false", "0", "no", ""] })),
    ],
    { error: "must be true, 1 or yes (on), or false, 0, no or empty (off)" },
  )
  .optional()
  .transform((value) => value ?? false);
