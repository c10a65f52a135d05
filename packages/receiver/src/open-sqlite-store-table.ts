import Database from "better-sqlite3";

/** What a SQLite-backed store of this package works on: its database, its table, and whether it closes it. */
export interface SqliteStoreTable {
  db: Database.Database;
  table: string;
  /** Opened here from a path: closed by the store's `close()`; a `Database` passed in is the caller's. */
  owned: boolean;
}

/**
 * The set-up the de-duplication and cursor stores share: the table name checked (it is written into the
 * SQL), the file opened when given as a path (WAL and a busy timeout, so that processes sharing it queue
 * rather than fail), and `create` run to make the table.
 */
export function openSqliteStoreTable(
  options: { database: Database.Database | string; table?: string | undefined },
  defaultTable: string,
  create: (db: Database.Database, table: string) => void,
): SqliteStoreTable {
  const table = options.table ?? defaultTable;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new TypeError("table must be a plain SQL identifier");
  const owned = typeof options.database === "string";
  const db = typeof options.database === "string" ? new Database(options.database) : options.database;
  if (owned) {
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 5000");
  }
  create(db, table);
  return { db, table, owned };
}
