import { describe, expect, it } from "vitest";
import { createBenchCredentials } from "./bench-credentials.js";
import { loadStoreApi } from "./store-api.js";

describe("the bench's credentials", () => {
  it("are taken by the store's admin app as its operator token (it refuses one under 16 characters)", async () => {
    const api = await loadStoreApi();
    const { token } = createBenchCredentials();
    const { registry } = api.createMetrics();
    const store = await api.openStore(":memory:");
    try {
      expect(() =>
        api.createAdminApp({ outbox: store.outbox, plants: store.plants, adminToken: token, registry }),
      ).not.toThrow();
    } finally {
      await store.close();
    }
    expect(createBenchCredentials().token).not.toBe(token);
  });
});
