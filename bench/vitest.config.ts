import { defineProject } from "vitest/config";

// Tests of the harness only (statistics, table, signing, profile summary, server processes):
// the benchmarks themselves never run in `pnpm test`.
export default defineProject({
  test: {
    name: "plant-store-bench",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    setupFiles: ["../scripts/fail-on-console.ts"],
    // The process tests start servers, clients and PostgreSQL on a small shared machine: the timeouts
    // are limits for a loaded CI box (the got loop's 200 requests once took over 5 s), not assertions.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
