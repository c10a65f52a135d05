import { defineConfig } from "vitest/config";

// Mutation testing runs the tests that reach the mutated files: the token checker's and the
// verifier's unit tests, and the body reader's tests, which talk to a node:http server in this
// process. The other tests (de-duplication stores, Koa apps, workerd, PostgreSQL) never reach
// these files differently and would multiply every mutant's run time.
export default defineConfig({
  test: {
    include: [
      "src/create-token-checker.test.ts",
      "src/create-verifier.test.ts",
      "test/integration/read-raw-body.test.ts",
    ],
  },
});
