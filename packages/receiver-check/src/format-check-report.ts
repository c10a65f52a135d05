import Table from "cli-table3";
import type { CheckReport } from "./run-receiver-check.js";

const MARK = { pass: "PASS", fail: "FAIL", skip: "skip" } as const;

/** Columns before "Why it matters", with their borders: result, case, expected, got. */
const FIXED_WIDTHS = [6, 32, 16, 26] as const;
const BORDERS = FIXED_WIDTHS.length + 2;

export interface FormatCheckReportOptions {
  /** Characters per line the table may use; default 160 (CI logs). The CLI passes the terminal's width. */
  width?: number;
}

/**
 * The report as a table for people: one row per case with what was sent (under its id), what was
 * expected, what came back and why it matters, then a summary line. No colours, so CI logs read the same.
 */
export function formatCheckReport(report: CheckReport, options: FormatCheckReportOptions = {}): string {
  const width = Math.max(100, options.width ?? 160);
  const fixed = FIXED_WIDTHS.reduce((sum, w) => sum + w, 0);
  const table = new Table({
    head: ["", "Case (what was sent)", "Expected", "Got", "Why it matters"],
    colWidths: [...FIXED_WIDTHS, Math.max(24, width - fixed - BORDERS)],
    wordWrap: true,
    style: { head: [], border: [], compact: false },
  });
  for (const c of report.cases) table.push([MARK[c.result], `${c.id}\n${c.title}`, c.expected, c.got, c.why]);
  const seconds = (report.durationMs / 1000).toFixed(1);
  const summary = `${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped; ${report.requests} requests in ${seconds} s`;
  const verdict = report.ok ? "the receiver conforms" : "the receiver does NOT conform";
  // The failed rows by name, so a long table need not be read (or two reports diffed) to find them.
  const failed = report.cases.filter((c) => c.result === "fail").map((c) => c.id);
  const failedLine = failed.length === 0 ? "" : `Failed: ${failed.join(", ")}\n`;
  const of =
    report.eventType === undefined
      ? report.url
      : `${report.url} (${report.eventType}; the toolkit's receivers take it at ${report.path})`;
  return `Receiver check of ${of}\n${table.toString()}\n${failedLine}${summary}: ${verdict}\n`;
}
