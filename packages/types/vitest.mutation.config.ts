import { defineConfig } from "vitest/config";

// Mutation testing runs the unit tests that reach the key, header, signing and HMAC code. The contract's
// schema tests (the differential test against the spec with ajv, JSON Schema drift, payloads) never
// reach these files and would multiply every mutant's run time.
export default defineConfig({
  test: {
    include: [
      "src/bearer-token.test.ts",
      "src/create-signing-core.test.ts",
      "src/webhook-header-checks.test.ts",
      "src/webhook-key.test.ts",
      "src/webhook-secret.test.ts",
      "src/webhook-verifier.test.ts",
      "src/create-node-hmac-sha256.test.ts",
      "src/equal-at.test.ts",
    ],
  },
});
