import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { DedupStore } from "@plant-store/receiver";
import { createPostgresDedupStore } from "@plant-store/receiver/postgres";
import { createSqliteDedupStore } from "@plant-store/receiver/sqlite";
import Database from "better-sqlite3";
import pg from "pg";
import { createPostgresPlantStore } from "./create-postgres-plant-store.js";
import { createSqlitePlantStore } from "./create-sqlite-plant-store.js";
import type { PlantStore } from "./plant-store.js";

export interface Storage {
  kind: "sqlite" | "memory" | "postgres";
  plantStore: PlantStore;
  dedupStore: DedupStore;
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

/** `postgres://...` (or `postgresql://`), `:memory:`, or a SQLite file path (its folder is created). */
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
        close: () => pool.end(),
      };
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
  }
  const memory = db === ":memory:";
  if (!memory) mkdirSync(dirname(db), { recursive: true });
  const database = new Database(db);
  if (!memory) database.pragma("journal_mode = WAL");
  database.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
  return {
    kind: memory ? "memory" : "sqlite",
    plantStore: createSqlitePlantStore(database),
    dedupStore: createSqliteDedupStore({ database }),
    close: async () => {
      database.close();
    },
  };
}
