import { configDefaults, type TestProjectInlineConfiguration } from "vitest/config";
import { pageScriptVitePlugin } from "../../scripts/page-script.js";

// The files that start no process of the app (no `serve`, `listen`, CLI process, PostgreSQL or
// browser): they call the app's code in the test's own process, on ports the system picks (listen on
// 0), and share nothing on disk but their own temporary folders, so they run side by side, first.
// The others start processes on fixed ports a store is told about, some a PostgreSQL or a Chromium:
// one file at a time keeps them from starving each other on a small shared machine, as before. Here,
// not in vitest.config.ts, so that the root config runs the same two projects.
const inProcess = [
  "src/**/*.test.ts",
  "test/integration/admin-api.test.ts",
  "test/integration/admin-hostile-input.test.ts",
  "test/integration/admin-input-findings.test.ts",
  "test/integration/admin-openapi-lint.test.ts",
  "test/integration/admin-routes.test.ts",
  "test/integration/cli-endpoint-input.test.ts",
  "test/integration/endpoint-url-change.test.ts",
  "test/integration/final-statuses.test.ts",
  "test/integration/handshake-limits.test.ts",
  "test/integration/listen-routes.test.ts",
  "test/integration/message-routes.test.ts",
  "test/integration/subscribers-api.test.ts",
];

const shared = {
  root: import.meta.dirname,
  setupFiles: ["../../scripts/fail-on-console.ts"],
  // Generous limits for a loaded CI box, not assertions about speed.
  testTimeout: 60_000,
  hookTimeout: 60_000,
};

export const senderAppProjects: TestProjectInlineConfiguration[] = [
  {
    // Tests that import src get the pages' scripts bundled, as the build does.
    plugins: [pageScriptVitePlugin],
    test: {
      ...shared,
      name: "plant-store",
      include: inProcess,
      // Vitest's default on 2 cores is one worker: two files at once needs saying.
      maxWorkers: 2,
      sequence: { groupOrder: 1 },
    },
  },
  {
    // Tests that import src get the pages' scripts bundled, as the build does.
    plugins: [pageScriptVitePlugin],
    test: {
      ...shared,
      name: "plant-store-processes",
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      exclude: [...configDefaults.exclude, ...inProcess],
      fileParallelism: false,
      sequence: { groupOrder: 2 },
    },
  },
];
