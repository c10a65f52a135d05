import { defineConfig } from "vitest/config";

// Mutation testing runs the in-process unit tests only: the integration tests start servers and
// PostgreSQL, which would multiply every mutant's run time without reaching these files differently.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
  },
});
