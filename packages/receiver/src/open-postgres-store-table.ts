import pg from "pg";

/** What a PostgreSQL-backed store of this package works on: its pool, its table, and when the table is there. */
export interface PostgresStoreTable {
  pool: pg.Pool;
  table: string;
  /** Opened here from a connection string: ended by the store's `close()`; a pool passed in is the caller's. */
  owned: boolean;
  /** Resolves once the table is made (the first call makes it; a failed attempt is tried again by the next). */
  whenReady(): Promise<void>;
}

/**
 * The set-up the de-duplication and cursor stores share: the table name checked (it is written into the
 * SQL), a pool opened for a connection string (with a listener for its idle connections' errors), and
 * `create` run once, at first use, in a transaction holding an advisory lock on the table's name: two
 * instances starting together would otherwise race on CREATE TABLE IF NOT EXISTS, which is not atomic
 * in PostgreSQL.
 */
export function openPostgresStoreTable(
  options: {
    pool: pg.Pool | string;
    table?: string | undefined;
    onError?: ((error: Error) => void) | undefined;
  },
  defaultTable: string,
  create: (client: pg.PoolClient, table: string) => Promise<void>,
): PostgresStoreTable {
  const table = options.table ?? defaultTable;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new TypeError("table must be a plain SQL identifier");
  const owned = typeof options.pool === "string";
  const pool =
    typeof options.pool === "string" ? new pg.Pool({ connectionString: options.pool }) : options.pool;
  // Without a listener, the pool's 'error' event for an idle connection the server ended would be an
  // uncaught exception that kills the process. A pool passed in is the caller's to listen to.
  if (owned) pool.on("error", (error) => options.onError?.(error));
  const init = async () => {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [table]);
      await create(client, table);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };
  let ready: Promise<void> | undefined;
  const whenReady = () => {
    ready ??= init().catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };
  return { pool, table, owned, whenReady };
}
