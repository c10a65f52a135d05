import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "plant-store-demo",
    include: ["src/**/*.test.ts"],
    setupFiles: ["../../scripts/fail-on-console.ts"],
  },
});
