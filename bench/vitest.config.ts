import { defineProject } from "vitest/config";

// Tests of the harness only (statistics, table, signing, profile summary, server processes):
// the benchmarks themselves never run in `pnpm test`.
export default defineProject({
  test: {
    name: "plant-store-bench",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    setupFiles: ["../scripts/fail-on-console.ts"],
  },
});
