import type { WebhookCatalog } from "@plant-store/types";
import type { SecretCodec } from "../secrets/create-secret-codec.js";
import type { ClaimPlan } from "./claim-plan.js";
import type { InsertedMessage, MessageToInsert } from "./message-to-insert.js";
import type { Operation } from "./operation.js";
import type { ClaimedRow } from "./rows.js";
import type { Sql, SqlParam, SqlValue } from "./sql.js";

/** The column types the queue's parameters and row sets use. */
export type ColumnType = "bigint" | "int" | "text";

/** What `writeAndClaim` did: each write's row count, in order, and the rows it leased. */
export interface WriteAndClaimResult {
  counts: number[];
  claimed: ClaimedRow[];
}

/**
 * What really differs between the databases, and nothing else: how parameters, lists and row sets are
 * written, row locks, how transactions are serialised, the schema's DDL, and the three statements on the
 * hot path, which PostgreSQL runs as one statement each (one round trip) where SQLite, which has no
 * data-modifying CTEs and no round trips to save, runs several. Every operation of the queue is written
 * once (`queue/operations`) over these.
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
  /**
   * Whether an endpoint whose subscriptions are `eventTypes` (a JSON array column, or NULL for every
   * message) takes a message of `eventType`: an entry equal to it, or ending in `*` and a prefix of it.
   */
  subscribes(eventTypes: Sql, eventType: Sql): Sql;
  /** The smaller of two numbers (`LEAST`; SQLite's two-argument `min`). */
  least(a: Sql, b: Sql): Sql;
  /** Serialises the transactions that take the same key until they end (one writer at a time on SQLite anyway). */
  lock(key: number): Operation<void>;
  /** Whether the table exists and has the column (schema upgrades). */
  hasColumn(table: string, column: string): Operation<boolean>;
  /** Creates every table and index of the current schema that is missing; changes nothing that exists. */
  createSchema(): Operation<void>;
  /** After rows were copied in with their own ids: new rows of these tables get ids after them. */
  continueIds(tables: readonly string[]): Operation<void>;
  /**
   * Inserts the messages in order, skipping any whose webhook id or idempotency key is taken, queues one
   * delivery for each per active endpoint that receives (`ENDPOINT_RECEIVES`), is addressed
   * (`ADDRESSED_TO_ENDPOINT`) and subscribes to its type, and wakes the workers after commit.
   */
  insertMessages(ctx: QueueContext, messages: readonly MessageToInsert[]): Operation<InsertedMessage[]>;
  /**
   * Runs `writes` (statements that return no rows) in order, then, given a plan, leases due work and
   * returns it with its payload and endpoint.
   */
  writeAndClaim(
    ctx: QueueContext,
    writes: readonly Sql[],
    claim: ClaimPlan | undefined,
  ): Operation<WriteAndClaimResult>;
}

/** What every operation is given: the database's dialect, the store's time for this operation, the secrets codec. */
export interface QueueContext {
  readonly dialect: Dialect;
  /**
   * The store's clock in Unix ms, as SQL: PostgreSQL's `statement_timestamp()` (so processes on machines
   * whose clocks disagree agree on leases), or the outbox's `now` option read once for the operation.
   */
  readonly now: Sql;
  readonly codec: SecretCodec;
  /** The outbox's webhooks, when it was given them: what messages and subscriptions are checked against. */
  readonly catalog?: WebhookCatalog;
}
