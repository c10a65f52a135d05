import { describe, expect, it } from "vitest";
import { skippedResult } from "./bench-result.js";
import { ratioRow } from "./ratio-row.js";

describe("ratioRow", () => {
  it("divides by the baseline measured in the same run and names it", () => {
    expect(ratioRow("a.rps", 600, "req/s", { name: "raw.rps", value: 1000 })).toEqual({
      name: "a.rps",
      value: 600,
      unit: "req/s",
      baseline: "raw.rps",
      ratio: 0.6,
    });
  });
  it("has no ratio without a usable baseline", () => {
    expect(ratioRow("a", 1, "ms").ratio).toBeNull();
    expect(ratioRow("a", 1, "ms", { name: "b", value: 0 }).ratio).toBeNull();
    expect(ratioRow("a", 1, "ms", { name: "b", value: Number.NaN }).ratio).toBeNull();
  });
});

describe("skippedResult", () => {
  it("carries the reason and no number", () => {
    expect(skippedResult("fanout.1.rate", "sender missing")).toMatchObject({
      value: null,
      ratio: null,
      notes: "skipped: sender missing",
    });
  });
});
