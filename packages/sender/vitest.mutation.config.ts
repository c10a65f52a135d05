import { defineConfig } from "vitest/config";

// Mutation testing runs the in-process unit tests only: the integration tests start servers and
// PostgreSQL, which would multiply every mutant's run time without reaching these files differently.
export default defineConfig({
  test: {
    // The handshake's test is the one exception: it is verifyEndpoint's only test, against a local
    // server, and runs in about a second.
    include: ["src/**/*.test.ts", "test/integration/verify-endpoint.test.ts"],
  },
});
