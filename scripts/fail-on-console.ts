import { afterEach, beforeEach, vi } from "vitest";

// Stray console output in a test hides real failures in CI logs; libraries here log through
// an injected logger, so any console call is a bug (same idea as zod's scripts/fail-on-console.ts).
const methods = ["log", "info", "warn", "error", "debug"] as const;
const calls: string[] = [];

beforeEach(() => {
  calls.length = 0;
  for (const method of methods) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      calls.push(`console.${method}: ${args.map(String).join(" ")}`);
    });
  }
});

afterEach(() => {
  vi.restoreAllMocks();
  if (calls.length > 0) {
    throw new Error(`Unexpected console output:\n${calls.join("\n")}`);
  }
});
