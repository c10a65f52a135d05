import type { Operation } from "./operation.js";
import type { Sql, SqlParam, SqlValue } from "./sql.js";

/** The column types the queue's parameters and row sets use. */
export type ColumnType = "bigint" | "int" | "text";

/**
 * How one database writes SQL, and nothing else: parameters, lists and row sets, locks, and the few
 * constructs the databases spell differently. Every statement of the queue is written once over it
 * (`queue/operations`, the claim's selection in `claim-sql.ts`); what a database does its own way is
 * its `StoreStatements`.
 */
export interface Dialect {
  readonly name: "postgresql" | "sqlite";
  /** The placeholder of the parameter at 1-based `index`: `$1::bigint[]` or `?`. */
  placeholder(index: number, param: SqlParam): string;
  /** Binds a parameter as the driver takes it (a list becomes an array, or JSON text). */
  bind(param: SqlParam): unknown;
  /** `column` is one of `values`: one parameter however many values there are. */
  isIn(column: Sql, values: readonly SqlValue[], type: ColumnType): Sql;
  /**
   * `column` is one of the values of `list`, a parameter bound to a list (`named(..., "bigint[]")`): the
   * same text for any number of values, for a statement composed once (`isIn` writes one value as `=`).
   */
  inList(column: Sql, list: Sql): Sql;
  /**
   * `rows` as a table named `alias` (to follow FROM), with the named, typed columns and each row's
   * 1-based position as column `n`: one parameter per column (or one for all), however many rows.
   */
  table(
    alias: string,
    columns: ReadonlyArray<readonly [name: string, type: ColumnType]>,
    rows: ReadonlyArray<ReadonlyArray<SqlValue>>,
  ): Sql;
  /**
   * Ends a SELECT whose rows the transaction then holds (PostgreSQL `FOR UPDATE`); nothing on SQLite,
   * whose write transaction (`BEGIN IMMEDIATE`) already holds the whole file.
   */
  readonly forUpdate: Sql;
  /** `forUpdate` that passes over rows another transaction holds instead of waiting for them. */
  readonly skipLocked: Sql;
  /** Serialises the transactions that take the same key until they end (one writer at a time on SQLite anyway). */
  lock(key: number): Operation<void>;
  /**
   * Whether an endpoint whose subscriptions are `eventTypes` (a JSON array column, or NULL for every
   * message) takes a message of `eventType`: an entry equal to it, or ending in `*` and a prefix of it.
   */
  subscribes(eventTypes: Sql, eventType: Sql): Sql;
  /** The smaller, the larger of two numbers (`LEAST`, `GREATEST`; SQLite's two-argument `min`, `max`). */
  least(a: Sql, b: Sql): Sql;
  greatest(a: Sql, b: Sql): Sql;
  /** After a table in FROM, the index to walk (SQLite's `INDEXED BY`; PostgreSQL's planner finds it). */
  indexedBy(index: string): string;
  /**
   * `FROM table alias WHERE` its rows whose id is in CTE `ids` (NULL: none), each looked up by primary
   * key, for the caller's `AND ...`: PostgreSQL `= ANY(ARRAY(...))`, never a join that scans the table;
   * SQLite a CROSS JOIN from `ids` (`IN (SELECT ...)` cost its idle claim about 100 µs more).
   */
  fromIds(ids: string, table: string, alias: string): Sql;
  /**
   * Joins to each row before it the rows of `table` (as `alias`) that `rest` picks over it as `x`, naming
   * outer columns and ending in a constant LIMIT: `LATERAL`, or on SQLite (none) by `id IN` that subquery.
   */
  joinFirst(alias: string, table: string, columns: readonly string[], rest: Sql): Sql;
}
