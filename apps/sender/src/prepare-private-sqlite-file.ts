import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";

/**
 * The store's SQLite files hold endpoint tokens and signing secrets: only this user may read them.
 * A folder created for them is 0700, the database 0600 before SQLite opens it (SQLite gives `-wal` and
 * `-shm` the database's mode; files left by an earlier run are tightened too). A folder that already
 * existed is left as it is: it may be the working directory.
 * `:memory:` (and `""`, a temporary database) name no file: SQLite keeps those in memory, so there is
 * nothing to create or protect (creating one left an empty file named `:memory:` in the working directory).
 */
export function preparePrivateSqliteFile(file: string): void {
  if (file === ":memory:" || file === "") return;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, "a", 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, 0o600);
}
