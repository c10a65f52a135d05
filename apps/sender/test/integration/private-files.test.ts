import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliJson, startStore } from "../fixtures/store-process.js";

describe("the store's SQLite files", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-modes-"));

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("are readable by their owner only: a folder it creates is 0700, the database and its -wal and -shm 0600", async () => {
    const db = join(dir, "created", "store.db");
    await cliJson([
      "endpoints",
      "add",
      "https://receiver.example/plant/webhook",
      "--token",
      "t0k3n",
      "--db",
      db,
    ]);
    const store = await startStore(["--db", db], { PLANT_STORE_ADMIN_TOKEN: "admin-token-0123456789" });
    try {
      expect(statSync(join(dir, "created")).mode & 0o777).toBe(0o700);
      for (const file of [db, `${db}-wal`, `${db}-shm`]) {
        expect(existsSync(file), file).toBe(true);
        expect(statSync(file).mode & 0o777, file).toBe(0o600);
      }
    } finally {
      await store.stop();
    }
  });
});
