import { describe, expect, it } from "vitest";
import { formatDuration } from "./format-duration.js";
import { parseDuration } from "./parse-duration.js";

describe("formatDuration", () => {
  it("writes the largest unit that fits, to one decimal", () => {
    expect([0, 250, 1000, 15_000, 90_000, 7_200_000, 449_280_000].map(formatDuration)).toEqual([
      "0ms",
      "250ms",
      "1s",
      "15s",
      "1.5m",
      "2h",
      "5.2d",
    ]);
  });

  it("writes what parseDuration reads back", () => {
    for (const ms of [1, 999, 1000, 60_000, 3_600_000, 86_400_000, 5 * 86_400_000]) {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    }
  });
});
