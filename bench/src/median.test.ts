import { describe, expect, it } from "vitest";
import { median, quantile } from "./median.js";

describe("median", () => {
  it("takes the middle value of an odd count, whatever the order", () => {
    expect(median([5, 1, 3])).toBe(3);
  });
  it("averages the two middle values of an even count", () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
  it("ignores values that are not finite and is NaN for none", () => {
    expect(median([Number.NaN, 2, Number.POSITIVE_INFINITY])).toBe(2);
    expect(median([])).toBeNaN();
  });
});

describe("quantile", () => {
  it("picks by nearest rank", () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(quantile(values, 0.5)).toBe(50);
    expect(quantile(values, 0.99)).toBe(99);
    expect(quantile(values, 1)).toBe(100);
    expect(quantile([7], 0.99)).toBe(7);
  });
});
