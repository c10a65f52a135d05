import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateWebhookSecret } from "@plant-store/types";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { createSqliteDedupStore } from "../../src/sqlite.js";
import { send, startReceiver } from "../fixtures/start-receiver.js";

const secret = generateWebhookSecret();
const dir = mkdtempSync(join(tmpdir(), "receiver-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("SQLite de-duplication", () => {
  it("still recognises a handled id after the store and server are reopened", async () => {
    const file = join(dir, "dedup.db");
    const id = `msg_${crypto.randomUUID()}`;
    let calls = 0;
    const onNewPlant = () => {
      calls++;
    };

    const store1 = createSqliteDedupStore({ database: file });
    const first = await startReceiver({ tokens: ["t"], secrets: [secret], dedupStore: store1, onNewPlant });
    expect(await (await send(first.url, { token: "t", secret, id })).json()).toEqual({
      received: true,
      duplicate: false,
    });
    await first.close();
    await store1.close();

    const store2 = createSqliteDedupStore({ database: file });
    const second = await startReceiver({ tokens: ["t"], secrets: [secret], dedupStore: store2, onNewPlant });
    expect(await (await send(second.url, { token: "t", secret, id })).json()).toEqual({
      received: true,
      duplicate: true,
    });
    await second.close();
    await store2.close();
    expect(calls).toBe(1);
  });

  it("accepts an open Database, leaves it open, and frees a released id", async () => {
    const db = new Database(join(dir, "shared.db"));
    const store = createSqliteDedupStore({ database: db, table: "my_dedup" });
    expect(await store.claim("a")).toBe("claimed");
    expect(await store.claim("a")).toBe("in-progress");
    await store.release("a");
    expect(await store.claim("a")).toBe("claimed");
    await store.complete("a");
    expect(await store.claim("a")).toBe("completed");
    await store.close();
    expect(db.prepare("SELECT count(*) AS n FROM my_dedup").get()).toEqual({ n: 1 });
    db.close();
  });

  it("lets an abandoned claim be taken over after its lease and forgets ids after the TTL", async () => {
    let t = 1_000_000;
    const store = createSqliteDedupStore({
      database: join(dir, "lease.db"),
      leaseMs: 100,
      ttlMs: 1000,
      now: () => t,
    });
    await store.claim("crashed");
    await store.claim("done");
    await store.complete("done");
    expect(await store.claim("crashed")).toBe("in-progress");
    t += 101;
    expect(await store.claim("crashed")).toBe("claimed");
    expect(await store.claim("done")).toBe("completed");
    t += 1000;
    expect(await store.claim("done")).toBe("claimed");
    await store.close();
  });

  it("fails a claim and a completion whose commit fails, instead of reporting what was never stored", async () => {
    const file = join(dir, "read-only.db");
    const store = createSqliteDedupStore({ database: file });
    await store.claim("before");
    await store.complete("before");
    // Immutable even for root and for descriptors already open (unlike chmod); the -shm file is
    // mmapped, so it stays writable (an immutable mapping ends the process with SIGBUS).
    const files = [file, `${file}-wal`].filter((f) => existsSync(f));
    execFileSync("chattr", ["+i", ...files]);
    try {
      await expect(store.claim("during")).rejects.toMatchObject({ code: expect.stringMatching(/^SQLITE_/) });
      await expect(store.complete("during")).rejects.toMatchObject({
        code: expect.stringMatching(/^SQLITE_/),
      });
    } finally {
      execFileSync("chattr", ["-i", ...files]);
    }
    expect(await store.claim("before")).toBe("completed");
    expect(await store.claim("during")).toBe("claimed");
    await store.close();
  });

  it("lets only the claim's owner release it once another instance has taken it over after the lease", async () => {
    let t = 1_000_000;
    const file = join(dir, "owners.db");
    // Two instances on one file, each with its own connection.
    const a = createSqliteDedupStore({ database: file, leaseMs: 100, now: () => t });
    const b = createSqliteDedupStore({ database: file, leaseMs: 100, now: () => t });
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
    await a.close();
    await b.close();
  });

  it("remembers a completed id whose claim row is gone", async () => {
    const db = new Database(join(dir, "gone.db"));
    const store = createSqliteDedupStore({ database: db });
    expect(await store.claim("x", "token-a")).toBe("claimed");
    db.prepare("DELETE FROM plant_webhook_dedup").run();
    await store.complete("x", "token-a");
    expect(await store.claim("x", "token-b")).toBe("completed");
    db.close();
  });

  it("adds the owner column to a table made before claims had owners, keeping its ids", async () => {
    const file = join(dir, "old-schema.db");
    const db = new Database(file);
    db.exec(`CREATE TABLE plant_webhook_dedup (
      id TEXT PRIMARY KEY,
      state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
      at INTEGER NOT NULL
    )`);
    db.prepare("INSERT INTO plant_webhook_dedup (id, state, at) VALUES ('handled', 'done', ?)").run(
      Date.now(),
    );
    db.close();
    const store = createSqliteDedupStore({ database: file });
    expect(await store.claim("handled", "token-a")).toBe("completed");
    expect(await store.claim("new", "token-a")).toBe("claimed");
    await store.release("new", "token-b");
    expect(await store.claim("new", "token-b")).toBe("in-progress");
    await store.close();
  });
});
