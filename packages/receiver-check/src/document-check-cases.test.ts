import { describe, expect, it } from "vitest";
import { respaced } from "./document-check-cases.js";

describe("respaced", () => {
  it("gives other bytes of the same JSON: reversed keys, spacing, \\u escapes", () => {
    const value = { id: "ORD-1", note: "café 🌱", items: [{ qty: 2 }], ok: true, none: null, n: 1.5 };
    const text = respaced(value);
    expect(JSON.parse(text)).toStrictEqual(value);
    expect(text).not.toBe(JSON.stringify(value));
    expect(text).toContain('"n" : 1.5');
    expect(text).toContain("\\u004fRD-1");
    expect(text).toContain("\\u0063af\\u00e9 \\ud83c\\udf31");
    expect(text.indexOf('"n"')).toBeLessThan(text.indexOf('"id"'));
  });
});
