import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "e2e",
    include: ["test/**/*.test.ts"],
    setupFiles: ["../scripts/fail-on-console.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Each file starts several processes (and some a PostgreSQL): one file at a time keeps a loaded
    // 2-core machine from starving them.
    fileParallelism: false,
  },
});
