import { formatDuration, parseDuration } from "@plant-store/types";
import { z } from "zod";

export interface DurationBounds {
  /** Milliseconds; default 0. */
  min?: number;
  /** Milliseconds; no limit by default. */
  max?: number;
  /** Said after the maximum, e.g. "the contract's limit". */
  maxReason?: string;
}

/**
 * A duration setting in the one grammar of both apps (`250ms`, `15s`, `5m`, `2h`, `5d`; a bare number
 * is milliseconds), as milliseconds. The message never repeats the value.
 */
export function durationSetting(bounds: DurationBounds = {}) {
  const { min = 0, max, maxReason } = bounds;
  return z.union([z.string(), z.number()]).transform((value, ctx) => {
    let ms: number;
    try {
      ms = typeof value === "number" ? value : parseDuration(value);
    } catch {
      ctx.addIssue({
        code: "custom",
        message: "must be a number of milliseconds or a duration such as 250ms, 15s, 5m, 2h, 5d",
      });
      return z.NEVER;
    }
    if (!Number.isFinite(ms) || ms < min) {
      ctx.addIssue({ code: "custom", message: `must be at least ${formatDuration(min)}` });
      return z.NEVER;
    }
    if (max !== undefined && ms > max) {
      const why = maxReason === undefined ? "" : ` (${maxReason})`;
      ctx.addIssue({ code: "custom", message: `must be at most ${formatDuration(max)}${why}` });
      return z.NEVER;
    }
    return ms;
  });
}
