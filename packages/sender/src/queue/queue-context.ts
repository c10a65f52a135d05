import type { WebhookCatalog } from "@plant-store/types";
import type { SecretCodec } from "../secrets/create-secret-codec.js";
import type { ClaimPlan } from "./claim-plan.js";
import type { Dialect } from "./dialect.js";
import type { FilterSet, FilterSetCache } from "./filter-set.js";
import type { InsertedMessage, MessageToInsert } from "./message-to-insert.js";
import type { Operation } from "./operation.js";
import type { ClaimedRow } from "./rows.js";
import type { Sql } from "./sql.js";

/** What every operation is given: the database's dialect and own statements, the store's time for this operation, the secrets codec. */
export interface QueueContext {
  readonly dialect: Dialect;
  readonly store: StoreStatements;
  /**
   * The store's clock in Unix ms, as SQL: PostgreSQL's `statement_timestamp()` (so processes on machines
   * whose clocks disagree agree on leases), or the outbox's `now` option read once for the operation.
   */
  readonly now: Sql;
  readonly codec: SecretCodec;
  /** The outbox's webhooks, when it was given them: what messages and subscriptions are checked against. */
  readonly catalog?: WebhookCatalog;
  /** The outbox's copy of the filter set, on a store that checks it in its insert (`readFilterSet`). */
  readonly filterSets?: FilterSetCache;
}

/** What `writeAndClaim` did: each write's row count, in order, and the rows it leased. */
export interface WriteAndClaimResult {
  counts: number[];
  claimed: ClaimedRow[];
}

/**
 * The statements each database writes its own way, in its folder (`queue/sqlite/sqlite-statements.ts`,
 * `queue/postgres/postgres-statements.ts`): its schema's upkeep, and the two hot paths, which PostgreSQL
 * runs as one statement each (one round trip) where SQLite, which has no data-modifying CTEs and no round
 * trips to save, runs several. Their rendered SQL is in `queue/sql-snapshots/`.
 */
export interface StoreStatements {
  /** Whether the table exists and has the column (schema upgrades). */
  hasColumn(table: string, column: string): Operation<boolean>;
  /** The current schema's DDL (`SQLITE_SCHEMA`, `POSTGRES_SCHEMA`), run statement by statement by `migrateSchema`. */
  readonly schema: string;
  /** After rows were copied in with their own ids: new rows of these tables get ids after them. */
  continueIds(tables: readonly string[]): Operation<void>;
  /**
   * Inserts the messages in order, skipping any whose webhook id or idempotency key is taken, queues
   * their deliveries (`fanOut`), records each inserted message's `filteredOut` endpoints in
   * `webhook_exclusions` (gone with the message should the call take it back), and wakes the workers
   * after commit. With `countExclusions` (a call that cannot be refused once its messages are in: one
   * message), it raises those endpoints' `filtered_count` too; otherwise the caller counts them
   * (`countExcluded`) once nothing can refuse the call. With `filterSet` (a `FilterSet`'s fingerprint:
   * the `filteredOut` it computed), it first compares that with the stored set's, and when they differ
   * writes nothing and throws `StaleFilterSetError`; exclusions are then recorded only for the endpoints
   * the fan-out would have sent to.
   */
  insertMessages(
    ctx: QueueContext,
    messages: readonly MessageToInsert[],
    options?: { countExclusions?: boolean; filterSet?: string },
  ): Operation<InsertedMessage[]>;
  /**
   * The stored filter set and its fingerprint, in one statement (one snapshot): on a store whose insert
   * checks it (PostgreSQL, where an enqueue's round trip saved is most of a filter's cost).
   */
  readFilterSet?(): Operation<FilterSet>;
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
