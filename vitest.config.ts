import { defineConfig } from "vitest/config";
import { e2eProjects } from "./e2e/vitest.projects.config.js";

// One root config; each workspace package with tests is a project with its own vitest.config.ts,
// so `pnpm vitest` from the root runs everything and `pnpm --filter X test` runs one package. e2e's are
// two projects, run after the others (e2e/vitest.projects.config.ts).
export default defineConfig({
  test: {
    projects: [
      "spec/vitest.config.ts",
      "packages/*/vitest.config.ts",
      "apps/*/vitest.config.ts",
      ...e2eProjects,
      "bench/vitest.config.ts",
    ],
  },
});
