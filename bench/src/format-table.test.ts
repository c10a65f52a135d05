import { describe, expect, it } from "vitest";
import { formatTable } from "./format-table.js";

describe("formatTable", () => {
  it("prints one aligned Markdown row per result with a dash for missing numbers", () => {
    const table = formatTable([
      { name: "receiver.rps", value: 12_345.6, unit: "req/s", baseline: "raw.rps", ratio: 0.456 },
      { name: "x", value: null, unit: "-", baseline: null, ratio: null, notes: "skipped: why" },
    ]);
    const lines = table.split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^\| name\s+\| +value \| unit +\| baseline +\| ratio \| notes +\|$/);
    expect(lines[2]).toContain("12,346");
    expect(lines[2]).toContain("0.46");
    expect(lines[3]).toContain("skipped: why");
    expect(lines[3]).toMatch(/\| +- \|/);
    expect(new Set(lines.map((line) => line.length)).size).toBe(1);
  });
});
