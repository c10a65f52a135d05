import { afterEach, describe, expect, it, vi } from "vitest";
import { createSampledWarning } from "./create-sampled-warning.js";

function logger() {
  const lines: Array<{ object: Record<string, unknown>; message: string }> = [];
  return { lines, warn: (object: object, message: string) => lines.push({ object: { ...object }, message }) };
}

describe("createSampledWarning", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("logs the first occurrence of a window at once and the rest as one counted line at its end", () => {
    vi.useFakeTimers();
    const log = logger();
    const warning = createSampledWarning(log, "authentication failed", { intervalMs: 1000 });
    for (let i = 0; i < 5000; i++) warning.note({ client: `10.0.0.${i % 3}` });
    expect(log.lines).toEqual([
      { object: { client: "10.0.0.0", sampled: true }, message: "authentication failed" },
    ]);
    vi.advanceTimersByTime(1000);
    expect(log.lines).toHaveLength(2);
    expect(log.lines[1]).toEqual({
      object: { occurrences: 4999, clients: 3, windowMs: 1000, sampled: true },
      message: "authentication failed (4999 more in the last 1 s)",
    });
    // A new window starts with the next occurrence, logged at once again.
    warning.note({ client: "10.0.0.9" });
    expect(log.lines[2]?.object).toEqual({ client: "10.0.0.9", sampled: true });
    vi.advanceTimersByTime(1000);
    // Nothing more happened in that window: no summary line.
    expect(log.lines).toHaveLength(3);
  });

  it("flushes the window's count on demand, once", () => {
    const log = logger();
    const warning = createSampledWarning(log, "refused", { intervalMs: 60_000 });
    warning.note({ client: "a" });
    warning.note({ client: "b" });
    warning.flush();
    warning.flush();
    expect(log.lines.map((line) => line.message)).toEqual(["refused", "refused (1 more in the last 60 s)"]);
  });
});
