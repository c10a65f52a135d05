import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "@plant-store/receiver-check",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    setupFiles: ["../../scripts/fail-on-console.ts"],
  },
});
