import { defineConfig } from "vitest/config";

// One root config; each workspace package with tests is a project with its own vitest.config.ts,
// so `pnpm vitest` from the root runs everything and `pnpm --filter X test` runs one package.
export default defineConfig({
  test: {
    projects: [
      "spec/vitest.config.ts",
      "packages/*/vitest.config.ts",
      "apps/*/vitest.config.ts",
      "e2e/vitest.config.ts",
      "bench/vitest.config.ts",
    ],
  },
});
