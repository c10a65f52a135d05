import type { Dialect } from "./dialect.js";
import type { Operation } from "./operation.js";
import type { StoreStatements } from "./queue-context.js";
import type { Sql } from "./sql.js";

/**
 * How an operation reaches one database: its dialect and own statements, its clock, its transactions and its wake-ups.
 * `Join` is what a caller hands over to run inside its own transaction (a PostgreSQL client; SQLite
 * joins through `enqueueSync` instead, and has none).
 */
export interface Driver<Join = never> {
  readonly dialect: Dialect;
  readonly store: StoreStatements;
  /** The store's time for one operation, as SQL. */
  now(): Sql;
  /**
   * Runs the operation in a transaction of its own (or in the caller's, given `join`): committed when it
   * returns, rolled back when it throws. Workers are woken after the commit when it asked for it.
   */
  transaction<R>(operation: Operation<R>, join?: Join): Promise<R>;
  /**
   * Runs an operation each of whose statements is complete by itself (one that writes is one atomic
   * statement, and nothing after it needs undoing): PostgreSQL saves the BEGIN and COMMIT round trips,
   * SQLite runs it in a transaction all the same (its statements cost no round trip). With `join`, in the
   * caller's transaction.
   */
  statements<R>(operation: Operation<R>, join?: Join): Promise<R>;
  /** Runs a read-only operation, each statement on its own. */
  read<R>(operation: Operation<R>): Promise<R>;
  /** Calls `listener` when new work may be due. */
  onWork(listener: () => void): () => void;
  close(): Promise<void>;
}
