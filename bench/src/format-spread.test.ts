import { describe, expect, it } from "vitest";
import { formatSpread } from "./format-spread.js";

describe("formatSpread", () => {
  it("gives the lowest and highest value and every run in the order measured", () => {
    expect(formatSpread([0.7, 0.62, 0.651])).toBe("0.62-0.70 over 3 runs (0.70, 0.62, 0.65)");
  });
  it("rounds to the digits asked for and counts one run in the singular", () => {
    expect(formatSpread([1234.56], 0)).toBe("1235-1235 over 1 run (1235)");
  });
  it("leaves out runs that gave no number, and says so when none did", () => {
    expect(formatSpread([Number.NaN, 2])).toBe("2.00-2.00 over 1 run (2.00)");
    expect(formatSpread([])).toBe("no runs");
  });
});
