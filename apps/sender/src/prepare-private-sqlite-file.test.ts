import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { preparePrivateSqliteFile } from "./prepare-private-sqlite-file.js";

describe("preparePrivateSqliteFile", () => {
  let dir: string;
  let cwd: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "private-sqlite-"));
    cwd = process.cwd();
    process.chdir(dir);
  });
  afterEach(() => {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  });

  it("creates the database file 0600 in a new 0700 folder", () => {
    const file = join(dir, "data", "store.db");
    preparePrivateSqliteFile(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "data")).mode & 0o777).toBe(0o700);
  });

  it("creates no file for SQLite's in-memory and temporary databases", () => {
    preparePrivateSqliteFile(":memory:");
    preparePrivateSqliteFile("");
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(join(dir, ":memory:"))).toBe(false);
  });
});
