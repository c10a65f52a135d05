import type { BenchResult } from "./bench-result.js";

function formatNumber(value: number | null, digits: number): string {
  if (value === null || !Number.isFinite(value)) return "-";
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString("en-US");
  return value.toFixed(digits);
}

/** A plain-text table (also valid Markdown) of the results. */
export function formatTable(results: readonly BenchResult[]): string {
  const header = ["name", "value", "unit", "baseline", "ratio", "notes"];
  const rows = results.map((r) => [
    r.name,
    formatNumber(r.value, 2),
    r.unit,
    r.baseline ?? "",
    formatNumber(r.ratio, 2),
    r.notes ?? "",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => (i === 1 || i === 4 ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 1 || i === 4 ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}
