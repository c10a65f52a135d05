import { defineConfig } from "vitest/config";

// One root config; each workspace package is a project with its own vitest.config.ts,
// so `pnpm vitest` from the root runs everything and `pnpm --filter X test` runs one.
export default defineConfig({
  test: {
    projects: ["spec", "packages/*", "apps/*", "e2e"],
  },
});
