import { defineProject } from "vitest/config";
import { pageScriptVitePlugin } from "../../scripts/page-script.js";

export default defineProject({
  plugins: [pageScriptVitePlugin],
  test: {
    name: "@plant-store/api",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    setupFiles: ["../../scripts/fail-on-console.ts"],
    testTimeout: 30_000,
  },
});
