import { defineProject } from "vitest/config";
import { pageScriptVitePlugin } from "../../scripts/page-script.js";

export default defineProject({
  // Tests that import src get the live page's script bundled, as the build does.
  plugins: [pageScriptVitePlugin],
  test: {
    name: "plant-receiver",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    setupFiles: ["../../scripts/fail-on-console.ts"],
    // Integration tests start the built app as a child process, PostgreSQL and Chromium.
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
