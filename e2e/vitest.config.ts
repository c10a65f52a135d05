import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "e2e",
    include: ["test/**/*.test.ts"],
    setupFiles: ["../scripts/fail-on-console.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
