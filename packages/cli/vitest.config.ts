import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@plant-store/cli",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    setupFiles: ["../../scripts/fail-on-console.ts"],
    // The integration tests run tsc over generated files on a small shared machine: limits, not assertions.
    testTimeout: 60_000,
  },
});
