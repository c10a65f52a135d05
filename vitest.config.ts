import { defineConfig } from "vitest/config";
import { senderAppProjects } from "./apps/sender/vitest.projects.config.js";
import { e2eProjects } from "./e2e/vitest.projects.config.js";

// One root config; each workspace package with tests is a project with its own vitest.config.ts,
// so `pnpm vitest` from the root runs everything and `pnpm --filter X test` runs one package. e2e's are
// two projects, run after the others (e2e/vitest.projects.config.ts).
export default defineConfig({
  test: {
    projects: [
      "spec/vitest.config.ts",
      "packages/*/vitest.config.ts",
      "apps/demo/vitest.config.ts",
      "apps/receiver/vitest.config.ts",
      // The sender app's are two projects (apps/sender/vitest.projects.config.ts).
      ...senderAppProjects,
      ...e2eProjects,
      "bench/vitest.config.ts",
    ],
  },
});
