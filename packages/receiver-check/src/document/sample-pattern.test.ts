import { describe, expect, it } from "vitest";
import { samplePattern } from "./sample-pattern.js";

describe("samplePattern", () => {
  it.each([
    ["^ORD-[0-9]{6}$", "ORD-000000"],
    ["^[A-Z]{3}-[0-9]{4}$", "AAA-0000"],
    ["^INV-\\d{4}-\\d{5}$", "INV-1111-11111"],
    ["^[A-Z0-9]{10,20}$", "AAAAAAAAAA"],
    ["^(eu|us)-[a-z]+$", "eu-a"],
    ["^(?:v\\d+\\.)?\\w+$", "a"],
    ["^[^0-9]+$", "a"],
    ["abc", "abc"],
    ["^x?y*z+$", "z"],
    ["^\\$\\.[a-f]{2,}$", "$.aa"],
  ])("gives a string %s matches", (pattern, sample) => {
    expect(samplePattern(pattern)).toBe(sample);
    expect(new RegExp(pattern, "u").test(sample)).toBe(true);
  });

  it.each([
    ["lookahead", "^(?=.*[0-9]).{8,}$"],
    ["back-reference", "^(a)\\1$"],
    ["unicode property", "^\\p{L}+$"],
    ["a class it cannot sample", "^[\\u00e9]$"],
    ["unbalanced", "^(ab$"],
  ])("gives nothing for a pattern it cannot follow (%s)", (_, pattern) => {
    expect(samplePattern(pattern)).toBeUndefined();
  });
});
