import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteOutbox } from "../../src/sqlite.js";
import { describeOutbox } from "../fixtures/outbox-suite.js";

describeOutbox("SQLite", {
  async open() {
    const dir = mkdtempSync(join(tmpdir(), "sender-sqlite-"));
    const file = join(dir, "store.db");
    return {
      outbox: createSqliteOutbox(file),
      second: async () => createSqliteOutbox(file),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
});
