import type { WebhookCatalog } from "@plant-store/types";
import Database from "better-sqlite3";
import { OutboxBusyError, OutboxInTransactionError } from "../../errors.js";
import type { EnqueueResult, EventMap, MessageInput, Outbox, UntypedMessage } from "../../outbox.js";
import type { OutboxOptions } from "../../outbox-options.js";
import { traceEnqueue } from "../../tracing/trace-enqueue.js";
import { createDatabaseOutbox, runStep } from "../create-database-outbox.js";
import { type Operation, runOperationSync } from "../operation.js";
import { enqueueMessages } from "../operations/enqueue-messages.js";
import { migrateSchema } from "../operations/migrate-schema.js";
import { prepareMessage } from "../prepare-message.js";
import { param } from "../sql.js";
import { sqliteDialect } from "./sqlite-dialect.js";
import { sqliteStatements } from "./sqlite-statements.js";

export interface SqliteOutboxOptions<Events extends EventMap = EventMap> extends OutboxOptions<Events> {
  /**
   * `"NORMAL"` (default): WAL commits are not synced, so a power loss can roll back the last
   * transactions (a process crash cannot). `"FULL"`: every commit is synced before it returns.
   */
  synchronous?: "NORMAL" | "FULL";
  /**
   * While a worker listens (`onWork`), how often to look for commits by other processes (a CLI adding a
   * message), in ms; default 100. A look is one `PRAGMA data_version`, not a query; 0 turns it off, leaving
   * such writes to the worker's poll.
   */
  watchIntervalMs?: number;
}

/** The queue as seen through SQLite: it can also enqueue synchronously, inside the caller's transaction. */
export interface SqliteOutbox<Events extends EventMap = EventMap> extends Outbox<Events> {
  /** The handle the outbox writes through (the caller's, or one it opened from a path). */
  readonly db: Database.Database;
  /**
   * `enqueue` for use inside the caller's `db.transaction(...)`, which cannot await: it joins the open
   * transaction (as a savepoint) and throws (`InvalidMessageError`, `WebhookIdTakenError`,
   * `IdempotencyConflictError`) instead of rejecting, so the caller's transaction rolls back with it rather
   * than committing its own rows without the message. The asynchronous methods refuse to run while that
   * transaction is open (`OutboxInTransactionError`).
   */
  enqueueSync(message: MessageInput<Events>): EnqueueResult;
}

/** A prepared statement, and the names of its columns when it answers its rows as arrays. */
interface Prepared {
  statement: Database.Statement;
  names: string[] | undefined;
}

/**
 * Each row as an object of its columns, made here from the row as an array: better-sqlite3 making the
 * objects itself cost a read about as much as SQLite's own work (18 rows of 13 columns, the record's
 * read: 142 µs of CPU as objects, 82 as arrays made into objects here).
 */
function toObjects(rows: unknown[][], names: readonly string[]): Record<string, unknown>[] {
  return rows.map((values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) row[names[i] as string] = values[i];
    return row;
  });
}

/** Runs an operation to its end synchronously, each statement prepared once per handle. */
function createStatementRunner(db: Database.Database) {
  const prepared = new Map<string, Prepared>();
  const query = (text: string, values: unknown[], kind: "rows" | "count") => {
    let entry = prepared.get(text);
    if (!entry) {
      const statement = db.prepare(text);
      // Its columns are known once it is prepared, unless it selects `*`: those follow the schema, which
      // another process may migrate, and better-sqlite3 names their columns at every call.
      const names =
        kind === "rows" && statement.reader && !text.includes("*")
          ? statement.columns().map((column) => column.name)
          : undefined;
      if (names) statement.raw(true);
      entry = { statement, names };
      prepared.set(text, entry);
    }
    const { statement, names } = entry;
    if (kind === "count") return statement.run(...values).changes;
    return names ? toObjects(statement.all(...values) as unknown[][], names) : statement.all(...values);
  };
  return <R>(operation: Operation<R>, onWake: () => void): R => {
    const runner = { dialect: sqliteDialect, query, wake: onWake, reusePlans: () => undefined };
    return runOperationSync(operation, (step) => runStep<unknown>(step, runner));
  };
}

/**
 * The embedded outbox in one SQLite file. WAL lets CLI commands write while `serve` reads, and every
 * write of the outbox's own is a `BEGIN IMMEDIATE` transaction, so two processes never claim the same
 * row: SQLite has one writer at a time and the busy timeout queues the rest.
 *
 * Given the caller's `Database`, `enqueueSync` called inside the caller's `db.transaction(...)` is part of
 * that transaction: rolled back with it, visible to workers only once it commits.
 */
export function createSqliteOutbox<Events extends EventMap = EventMap>(
  pathOrDb: string | Database.Database,
  options: SqliteOutboxOptions<Events> = {},
): SqliteOutbox<Events> {
  const owned = typeof pathOrDb === "string";
  const db = typeof pathOrDb === "string" ? new Database(pathOrDb) : pathOrDb;
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 10000");
  db.pragma("foreign_keys = ON");
  db.pragma(`synchronous = ${options.synchronous === "FULL" ? "FULL" : "NORMAL"}`);
  const runOperation = createStatementRunner(db);
  // Tells the outbox's onWork listeners; there is no one to tell until the first listens.
  let notify = () => {};

  // Work queued inside the caller's transaction is announced after it ends: a worker sharing this
  // handle would otherwise claim rows that are not committed yet (and may never be).
  let announcing = false;
  function announce(): void {
    if (!db.inTransaction) {
      notify();
      return;
    }
    if (announcing) return;
    announcing = true;
    const check = () => {
      if (!db.open) return;
      if (db.inTransaction) {
        setTimeout(check, 2).unref();
        return;
      }
      announcing = false;
      notify();
    };
    setImmediate(check);
  }

  // Made once: better-sqlite3 builds a transaction's wrappers when it is made, not when it runs.
  let woken = false;
  const onWake = () => {
    woken = true;
  };
  const transaction = db.transaction((operation: Operation<unknown>) => runOperation(operation, onWake));

  /** In a transaction of its own, or as a savepoint of the caller's when one is open (`enqueueSync`). */
  function runSync<R>(operation: Operation<R>): R {
    woken = false;
    const result = (db.inTransaction ? transaction(operation) : transaction.immediate(operation)) as R;
    if (woken) announce();
    return result;
  }

  // The asynchronous methods never join a caller's open transaction: they would answer before it ends,
  // and what they wrote would be rolled back with it.
  async function ownTransaction<R>(operation: Operation<R>): Promise<R> {
    if (db.inTransaction)
      throw new OutboxBusyError(
        "The shared SQLite handle is inside a transaction: try again once it has ended",
      );
    return runSync(operation);
  }

  // SQLite has no NOTIFY: while someone listens for work, another process's commit (a CLI adding a
  // message) is noticed by PRAGMA data_version, which changes only when another connection commits.
  // Reading it touches no table, so it can run far more often than a claim query.
  const dataVersion = db.prepare<[], number>("PRAGMA data_version").pluck();
  const watchIntervalMs = options.watchIntervalMs ?? 100;
  let watcher: NodeJS.Timeout | undefined;
  let seenVersion = 0;
  function watch(): void {
    if (watchIntervalMs <= 0) return;
    seenVersion = dataVersion.get() as number;
    watcher = setInterval(() => {
      let version: number;
      try {
        version = dataVersion.get() as number;
      } catch {
        return; // a locked or closed file: the worker's own poll reports real trouble
      }
      if (version !== seenVersion) {
        seenVersion = version;
        notify();
      }
    }, watchIntervalMs);
    watcher.unref();
  }
  function unwatch(): void {
    clearInterval(watcher);
    watcher = undefined;
  }

  const { context, ...outbox } = createDatabaseOutbox(
    {
      dialect: sqliteDialect,
      store: sqliteStatements,
      ownNow: () => param(Date.now(), "bigint"),
      transaction: ownTransaction,
      statements: ownTransaction,
      read: async (operation) => runOperation(operation, announce),
      listen(listeners) {
        notify = listeners;
        watch();
      },
      unlisten: unwatch,
      close: async () => {
        if (owned) db.close();
      },
    },
    options,
  );
  const catalog = options.catalog as WebhookCatalog | undefined;
  runSync(migrateSchema(context()));

  /** Refuses at once, not as a rejection the caller's synchronous transaction would never see. */
  function notInCallerTransaction(method: string): void {
    if (db.inTransaction)
      throw new OutboxInTransactionError(
        `outbox.${method}() was called inside an open transaction of the shared SQLite handle; ` +
          "a db.transaction(...) function cannot await it: call outbox.enqueueSync() there instead",
      );
  }

  return {
    ...outbox,
    db,
    enqueueSync(message) {
      const prepared = prepareMessage(message as UntypedMessage, catalog);
      const [result] = traceEnqueue([prepared.webhookId], (traceparents) =>
        runSync(enqueueMessages(context(), [prepared], traceparents)),
      );
      return result as EnqueueResult;
    },
    enqueue(message) {
      notInCallerTransaction("enqueue");
      return outbox.enqueue(message);
    },
    enqueueMany(messages) {
      notInCallerTransaction("enqueueMany");
      return outbox.enqueueMany(messages);
    },
    async claimDue(request) {
      // Rows written inside the caller's open transaction are not committed: claim once it ends.
      if (db.inTransaction) {
        announce();
        return [];
      }
      return outbox.claimDue(request);
    },
    async reencryptEndpoints() {
      // The values replaced would otherwise stay readable in the file's free space and in the WAL:
      // secure_delete zeroes what the updates free, and the checkpoint moves the pages into the file
      // and empties the WAL.
      const secureDelete = db.pragma("secure_delete", { simple: true }) as number;
      db.pragma("secure_delete = ON");
      try {
        const changed = await outbox.reencryptEndpoints();
        db.pragma("wal_checkpoint(TRUNCATE)");
        return changed;
      } finally {
        db.pragma(`secure_delete = ${secureDelete ? "ON" : "OFF"}`);
      }
    },
  };
}
