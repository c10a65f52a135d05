import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import type { CursorStore, DedupStore } from "@plant-store/receiver";
import { createPostgresCursorStore, createPostgresDedupStore } from "@plant-store/receiver/postgres";
import { createSqliteCursorStore, createSqliteDedupStore } from "@plant-store/receiver/sqlite";
import Database from "better-sqlite3";
import pg from "pg";
import { createPostgresPlantStore } from "./create-postgres-plant-store.js";
import { createSqlitePlantStore } from "./create-sqlite-plant-store.js";
import type { PlantStore } from "./plant-store.js";

export interface Storage {
  kind: "sqlite" | "memory" | "postgres";
  plantStore: PlantStore;
  dedupStore: DedupStore;
  /** The catch-up's cursor, beside the webhook ids it de-duplicates against (`--catch-up-from`). */
  cursorStore: CursorStore;
  close(): Promise<void>;
}

export interface StorageOptions {
  /**
   * How long a statement may wait for a lock. SQLite: the busy timeout (better-sqlite3 waits
   * synchronously, so this also bounds how long one locked write stalls the whole process).
   * PostgreSQL: the statement timeout. Default 5000 ms.
   */
  busyTimeoutMs?: number;
  /** A PostgreSQL connection the server ended while idle (a restart, a failover); the pool reconnects. */
  onError?: (error: Error) => void;
}

/**
 * Only this user may read the receiver's SQLite files: they hold every plant received and every
 * webhook id seen. Folders created for them are 0700; the database and its `-wal` and `-shm` are
 * 0600 (SQLite gives the last two the database file's mode; ones left by an earlier run are
 * tightened too). A folder that already existed is left as it is: it may be the working directory.
 */
function prepareSqliteFiles(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, "a", 0o600));
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(path)) chmodSync(path, 0o600);
  }
}

/**
 * `postgres://...` (or `postgresql://`), `:memory:`, or a SQLite file path (its folder is created
 * 0700, its files 0600).
 */
export async function openStorage(db: string, options: StorageOptions = {}): Promise<Storage> {
  if (/^postgres(ql)?:\/\//.test(db)) {
    const pool = new pg.Pool({
      connectionString: db,
      // Without these a locked table or an unreachable server holds every request (and then every
      // pooled connection) until the sender gives up; with them the answer is a prompt 500 and the
      // sender retries later.
      statement_timeout: options.busyTimeoutMs ?? 5000,
      connectionTimeoutMillis: Math.max(options.busyTimeoutMs ?? 5000, 1000),
    });
    // Without a listener, an idle connection the server ends is an uncaught exception: the process dies.
    pool.on("error", (error) => options.onError?.(error));
    try {
      const plantStore = await createPostgresPlantStore(pool);
      return {
        kind: "postgres",
        plantStore,
        dedupStore: createPostgresDedupStore({ pool }),
        cursorStore: createPostgresCursorStore({ pool }),
        close: () => pool.end(),
      };
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
  }
  const memory = db === ":memory:";
  if (!memory) prepareSqliteFiles(db);
  const database = new Database(db);
  if (!memory) database.pragma("journal_mode = WAL");
  database.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
  return {
    kind: memory ? "memory" : "sqlite",
    plantStore: createSqlitePlantStore(database),
    dedupStore: createSqliteDedupStore({ database }),
    cursorStore: createSqliteCursorStore({ database }),
    close: async () => {
      database.close();
    },
  };
}
