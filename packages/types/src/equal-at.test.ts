import { describe, expect, it } from "vitest";
import { equalAt } from "./equal-at.js";

describe("equalAt", () => {
  it("compares the text from the offset with the expected text", () => {
    expect(equalAt("v1,abc", 3, "abc")).toBe(true);
    expect(equalAt("abc", 0, "abc")).toBe(true);
    expect(equalAt("", 0, "")).toBe(true);
  });

  it("answers false for any difference, wherever it is", () => {
    expect(equalAt("v1,abc", 3, "abd")).toBe(false);
    expect(equalAt("v1,abc", 3, "xbc")).toBe(false);
    expect(equalAt("v1,abc", 3, "axc")).toBe(false);
    expect(equalAt("v1,abc", 2, "abc")).toBe(false);
  });

  it("answers false when the lengths differ, before reading past either end", () => {
    expect(equalAt("v1,abc", 3, "ab")).toBe(false);
    expect(equalAt("v1,abc", 3, "abcd")).toBe(false);
    expect(equalAt("v1,ab", 3, "abc")).toBe(false);
    // charCodeAt past the end is NaN, and NaN ^ x is x: without the length check "ab\0" would pass.
    expect(equalAt("v1,ab", 3, "ab\0")).toBe(false);
  });
});
