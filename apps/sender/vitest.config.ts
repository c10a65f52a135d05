import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "plant-store",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    setupFiles: ["../../scripts/fail-on-console.ts"],
    // These tests start real processes, databases and servers on a small shared machine: one file at a
    // time keeps them from starving each other, and the generous timeouts are limits, not assertions.
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
