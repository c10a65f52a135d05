import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@plant-store/sender",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    setupFiles: ["../../scripts/fail-on-console.ts"],
    // Integration tests start PostgreSQL and real servers on a small shared machine; the timeouts are
    // limits for a loaded CI box, not assertions about speed.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
