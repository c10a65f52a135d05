import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { afterAll, beforeAll } from "vitest";
import { createPostgresOutbox } from "../../src/postgres.js";
import { createSqliteOutbox } from "../../src/sqlite.js";
import { describeEvents } from "../fixtures/events-suite.js";

let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
});

describeEvents("SQLite", {
  async open(options = {}) {
    const dir = mkdtempSync(join(tmpdir(), "sender-events-"));
    const file = join(dir, "store.db");
    return {
      outbox: createSqliteOutbox(file, options),
      second: async () => createSqliteOutbox(file, options),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
});

describeEvents("PostgreSQL", {
  async open(options = {}) {
    const url = await postgres.createDatabase();
    return {
      outbox: await createPostgresOutbox(url, options),
      second: () => createPostgresOutbox(url, options),
      cleanup: async () => undefined,
    };
  },
});
