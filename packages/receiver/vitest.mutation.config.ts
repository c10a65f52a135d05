import { defineConfig } from "vitest/config";

// Mutation testing runs the tests that reach the mutated files: the token checker's, the
// verifier's, the once runner's and the delivery handler's unit tests, the catalog receiver's tests, the body reader's tests, and the in-process
// adapter, router, refused-body and tracing tests that drive the delivery handler over node:http, and
// the verification handshake's (in the core, and through every adapter against the sender's request).
// The others (SQLite and PostgreSQL stores, workerd) never reach these files differently and would
// multiply every mutant's run time.
export default defineConfig({
  test: {
    include: [
      "src/create-token-checker.test.ts",
      "src/create-verifier.test.ts",
      "test/integration/read-raw-body.test.ts",
      "src/create-once-runner.test.ts",
      "src/create-delivery-handler.test.ts",
      "src/create-webhook-receiver.test.ts",
      "test/integration/adapters.test.ts",
      "test/integration/router.test.ts",
      "test/integration/refused-body.test.ts",
      "test/integration/tracing.test.ts",
      "test/integration/webhook-catalog.test.ts",
      "src/answer-verification.test.ts",
      "test/integration/verification-handshake.test.ts",
    ],
  },
});
