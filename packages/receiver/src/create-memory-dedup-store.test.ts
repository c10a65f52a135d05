import { describe, expect, it } from "vitest";
import { createMemoryDedupStore } from "./create-memory-dedup-store.js";
import { DedupStoreFullError } from "./errors/dedup-store-full-error.js";

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

  it("forgets the id claimed longest ago to make room only once it is older than minRetentionMs", async () => {
    let t = 0;
    const store = createMemoryDedupStore({ maxEntries: 2, minRetentionMs: 1000, now: () => t });
    for (const id of ["a", "b"]) {
      await store.claim(id);
      await store.complete(id);
    }
    t = 999;
    await expect(store.claim("c")).rejects.toBeInstanceOf(DedupStoreFullError);
    expect(await store.claim("a")).toBe("completed");
    expect(await store.claim("b")).toBe("completed");
    t = 1000;
    expect(await store.claim("c")).toBe("claimed");
    expect(await store.claim("b")).toBe("completed");
    // "a" was the one forgotten.
    expect(await store.claim("a")).toBe("claimed");
  });

  it("counts an id's age from its claim, however late it completed, and forgets in claim order", async () => {
    let t = 0;
    const store = createMemoryDedupStore({ maxEntries: 2, minRetentionMs: 1000, now: () => t });
    await store.claim("a");
    t = 10;
    await store.claim("b");
    await store.complete("b");
    t = 20;
    await store.complete("a");
    t = 999;
    await expect(store.claim("c")).rejects.toBeInstanceOf(DedupStoreFullError);
    t = 1000;
    expect(await store.claim("c")).toBe("claimed");
    expect(await store.claim("b")).toBe("completed");
    // "a", claimed first though completed last, was the one forgotten (c's room given back first).
    await store.release("c");
    expect(await store.claim("a")).toBe("claimed");
  });

  it("keeps a pending claim while its lease runs even when it is older than minRetentionMs", async () => {
    let t = 0;
    const store = createMemoryDedupStore({ maxEntries: 1, minRetentionMs: 10, leaseMs: 100, now: () => t });
    await store.claim("running");
    t = 50;
    await expect(store.claim("other")).rejects.toBeInstanceOf(DedupStoreFullError);
    expect(await store.claim("running")).toBe("in-progress");
    t = 100;
    expect(await store.claim("other")).toBe("claimed");
  });

  it("still knows an id inside the replay window after 100,000 other ids, refusing new ones instead", async () => {
    const store = createMemoryDedupStore();
    expect(await store.claim("replayed")).toBe("claimed");
    await store.complete("replayed");
    for (let i = 1; i < 100_000; i++) {
      await store.claim(`other_${i}`);
      await store.complete(`other_${i}`);
    }
    await expect(store.claim("one_too_many")).rejects.toMatchObject({ code: "ERR_DEDUP_STORE_FULL" });
    expect(await store.claim("replayed")).toBe("completed");
  });

  it("remembers a completed id even when the store is full of young ids", async () => {
    const store = createMemoryDedupStore({ maxEntries: 1 });
    await store.claim("a");
    await store.complete("b");
    expect(await store.claim("a")).toBe("in-progress");
    expect(await store.claim("b")).toBe("completed");
  });

  it("lets only the claim's owner release it once another owner has taken over after the lease", async () => {
    let t = 0;
    const store = createMemoryDedupStore({ leaseMs: 100, now: () => t });
    expect(await store.claim("x", "a")).toBe("claimed");
    t = 101;
    expect(await store.claim("x", "b")).toBe("claimed");
    // The first attempt's handler finally fails: its release must not free the second one's claim.
    await store.release("x", "a");
    expect(await store.claim("x", "c")).toBe("in-progress");
    await store.release("x", "b");
    expect(await store.claim("x", "c")).toBe("claimed");
    // A late success of any attempt is remembered, whoever holds the claim.
    await store.complete("x", "a");
    await store.release("x", "c");
    expect(await store.claim("x", "d")).toBe("completed");
  });
});
