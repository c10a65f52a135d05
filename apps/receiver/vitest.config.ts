import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "plant-receiver",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    setupFiles: ["../../scripts/fail-on-console.ts"],
    // Integration tests start the built app as a child process, PostgreSQL and Chromium.
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
