import { endConnections, startPostgres, type TestPostgres } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DedupStore } from "../../src/dedup-store.js";
import { createPostgresDedupStore } from "../../src/postgres.js";
import { type RunningReceiver, send, startReceiver } from "../fixtures/start-receiver.js";

const secret = generateWebhookSecret();

describe("PostgreSQL de-duplication across instances", () => {
  let server: TestPostgres;
  let url: string;
  beforeAll(async () => {
    server = await startPostgres();
    url = await server.createDatabase("receiver_dedup");
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("runs the handler once when two app instances race on the same id", async () => {
    let calls = 0;
    let seenInProgress = 0;
    const onNewPlant = async () => {
      calls++;
      // Runs until the other instance has seen the claim in progress and has to wait.
      const before = seenInProgress;
      await vi.waitFor(() => expect(seenInProgress).toBeGreaterThan(before), { timeout: 10_000 });
    };
    const counting = (store: DedupStore): DedupStore => ({
      async claim(id, token) {
        const state = await store.claim(id, token);
        if (state === "in-progress") seenInProgress++;
        return state;
      },
      complete: (id, token) => store.complete(id, token),
      release: (id, token) => store.release(id, token),
      close: () => store.close(),
    });
    // Two stores with their own pools: as separate as two processes, sharing only the database.
    const stores = [createPostgresDedupStore({ pool: url }), createPostgresDedupStore({ pool: url })].map(
      counting,
    );
    const instances: RunningReceiver[] = [];
    for (const dedupStore of stores) {
      instances.push(await startReceiver({ tokens: ["t"], secrets: [secret], dedupStore, onNewPlant }));
    }
    try {
      for (let round = 0; round < 5; round++) {
        const id = `msg_${crypto.randomUUID()}`;
        const responses = await Promise.all(
          [...instances, ...instances].map((instance) => send(instance.url, { token: "t", secret, id })),
        );
        const bodies = (await Promise.all(responses.map((r) => r.json()))) as { duplicate: boolean }[];
        expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
        expect(bodies.filter((b) => b.duplicate === false)).toHaveLength(1);
      }
      expect(calls).toBe(5);
    } finally {
      for (const instance of instances) await instance.close();
      for (const store of stores) await store.close();
    }
  });

  it("lets a redelivery on the other instance run after the first instance's handler failed", async () => {
    const pool = new pg.Pool({ connectionString: url });
    const store = createPostgresDedupStore({ pool, table: "failover_dedup" });
    let calls = 0;
    const failing = await startReceiver({
      tokens: ["t"],
      secrets: [secret],
      dedupStore: store,
      onNewPlant: () => {
        throw new Error("boom");
      },
    });
    const working = await startReceiver({
      tokens: ["t"],
      secrets: [secret],
      dedupStore: createPostgresDedupStore({ pool, table: "failover_dedup" }),
      onNewPlant: () => {
        calls++;
      },
    });
    try {
      const id = `msg_${crypto.randomUUID()}`;
      expect((await send(failing.url, { token: "t", secret, id })).status).toBe(500);
      expect(await (await send(working.url, { token: "t", secret, id })).json()).toEqual({
        received: true,
        duplicate: false,
      });
      expect(await (await send(failing.url, { token: "t", secret, id })).json()).toEqual({
        received: true,
        duplicate: true,
      });
      expect(calls).toBe(1);
    } finally {
      await failing.close();
      await working.close();
      await store.close();
      // A pool passed in belongs to the caller: close() above must have left it usable.
      expect((await pool.query("SELECT count(*)::int AS n FROM failover_dedup")).rows[0]).toEqual({ n: 1 });
      await pool.end();
    }
  });

  it("lets only the claim's owner release it once another instance has taken it over after the lease", async () => {
    let t = 1_000_000;
    const options = { pool: url, table: "owners_dedup", leaseMs: 100, now: () => t };
    const [a, b] = [createPostgresDedupStore(options), createPostgresDedupStore(options)];
    try {
      expect(await a.claim("x", "token-a")).toBe("claimed");
      t += 101;
      expect(await b.claim("x", "token-b")).toBe("claimed");
      // A's handler finally fails: its release must leave B's claim alone.
      await a.release("x", "token-a");
      expect(await a.claim("x", "token-c")).toBe("in-progress");
      await b.release("x", "token-b");
      expect(await a.claim("x", "token-c")).toBe("claimed");
      // A late success is remembered whoever holds the claim, and a later release cannot undo it.
      await b.complete("x", "token-b");
      await a.release("x", "token-c");
      expect(await a.claim("x", "token-d")).toBe("completed");
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("remembers a completed id whose claim row is gone", async () => {
    const pool = new pg.Pool({ connectionString: url });
    const store = createPostgresDedupStore({ pool, table: "gone_dedup" });
    try {
      expect(await store.claim("x", "token-a")).toBe("claimed");
      await pool.query("DELETE FROM gone_dedup");
      await store.complete("x", "token-a");
      expect(await store.claim("x", "token-b")).toBe("completed");
    } finally {
      await store.close();
      await pool.end();
    }
  });

  it("adds the owner column to a table made before claims had owners, keeping its ids", async () => {
    const pool = new pg.Pool({ connectionString: url });
    await pool.query(`CREATE TABLE old_dedup (
      id TEXT PRIMARY KEY,
      state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
      at BIGINT NOT NULL
    )`);
    await pool.query("INSERT INTO old_dedup (id, state, at) VALUES ('handled', 'done', $1)", [Date.now()]);
    const store = createPostgresDedupStore({ pool, table: "old_dedup" });
    try {
      expect(await store.claim("handled", "token-a")).toBe("completed");
      expect(await store.claim("new", "token-a")).toBe("claimed");
      await store.release("new", "token-b");
      expect(await store.claim("new", "token-b")).toBe("in-progress");
    } finally {
      await store.close();
      await pool.end();
    }
  });

  it("keeps working when the server ends its idle connections, reporting it instead of crashing", async () => {
    const errors: Array<{ code?: string }> = [];
    const store = createPostgresDedupStore({
      pool: url,
      onError: (error) => errors.push(error as { code?: string }),
    });
    try {
      const first = `msg_${crypto.randomUUID()}`;
      expect(await store.claim(first)).toBe("claimed");
      await store.complete(first);
      // What a server restart or a failover does to every open connection, idle pooled ones included.
      expect(await endConnections(url)).toBeGreaterThan(0);
      await vi.waitFor(() => expect(errors.map((error) => error.code)).toContain("57P01"));
      expect(await store.claim(first)).toBe("completed");
      expect(await store.claim(`msg_${crypto.randomUUID()}`)).toBe("claimed");
    } finally {
      await store.close();
    }
  });
});
