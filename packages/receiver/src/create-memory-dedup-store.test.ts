import { describe, expect, it } from "vitest";
import { createMemoryDedupStore } from "./create-memory-dedup-store.js";

describe("createMemoryDedupStore", () => {
  it("claims a new id once, then reports it in progress, then completed", async () => {
    const store = createMemoryDedupStore();
    expect(await store.claim("a")).toBe("claimed");
    expect(await store.claim("a")).toBe("in-progress");
    await store.complete("a");
    expect(await store.claim("a")).toBe("completed");
  });

  it("lets a released id be claimed again", async () => {
    const store = createMemoryDedupStore();
    await store.claim("a");
    await store.release("a");
    expect(await store.claim("a")).toBe("claimed");
  });

  it("forgets completed ids after the TTL and abandoned claims after the lease", async () => {
    let t = 0;
    const store = createMemoryDedupStore({ ttlMs: 1000, leaseMs: 100, now: () => t });
    await store.claim("done");
    await store.complete("done");
    await store.claim("stuck");
    t = 150;
    expect(await store.claim("stuck")).toBe("claimed");
    expect(await store.claim("done")).toBe("completed");
    t = 1001;
    expect(await store.claim("done")).toBe("claimed");
  });

  it("keeps at most maxEntries ids, forgetting the oldest", async () => {
    const store = createMemoryDedupStore({ maxEntries: 2 });
    for (const id of ["a", "b", "c"]) {
      await store.claim(id);
      await store.complete(id);
    }
    expect(await store.claim("c")).toBe("completed");
    expect(await store.claim("b")).toBe("completed");
    expect(await store.claim("a")).toBe("claimed");
  });
});
