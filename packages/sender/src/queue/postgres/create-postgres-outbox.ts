import pg from "pg";
import {
  type EnqueueResult,
  type EventMap,
  type MessageInput,
  OUTBOX_NOTIFY_CHANNEL,
  type Outbox,
  type UntypedMessage,
} from "../../outbox.js";
import type { OutboxOptions } from "../../outbox-options.js";
import { createDatabaseOutbox, type Database, runStep, type StepRunner } from "../create-database-outbox.js";
import { type Operation, runOperationAsync } from "../operation.js";
import { migrateSchema } from "../operations/migrate-schema.js";
import { POSTGRES_NOW, postgresDialect } from "./postgres-dialect.js";
import { postgresStatements } from "./postgres-statements.js";
import { withTransaction } from "./with-transaction.js";

const DEADLOCK_DETECTED = "40P01";

export interface PostgresOutboxOptions<Events extends EventMap = EventMap> extends OutboxOptions<Events> {
  /**
   * Longest wait for a lock (a table locked by someone else) before a statement fails, in ms;
   * default 5000. Only used when the outbox opens its own pool from a URL.
   */
  lockTimeoutMs?: number;
  /**
   * Reports a lost LISTEN connection (polling covers the gap while it reconnects) and, for a pool
   * opened from a URL, an idle pooled connection the server ended (a restart, a failover).
   */
  onError?: (error: Error) => void;
}

export interface PostgresEnqueueOptions {
  /**
   * A client on which the caller ran `BEGIN`: the message is queued in the caller's transaction,
   * delivered once after `COMMIT` and never if it rolls back. Without it the message commits on its own,
   * at once, whatever happens to any transaction the caller has open elsewhere.
   */
  client?: pg.ClientBase;
}

/** The queue as seen through PostgreSQL: `enqueue` can join the caller's transaction. */
export interface PostgresOutbox<Events extends EventMap = EventMap> extends Outbox<Events> {
  enqueue(message: MessageInput<Events>, options?: PostgresEnqueueOptions): Promise<EnqueueResult>;
  enqueueMany(
    messages: ReadonlyArray<MessageInput<Events>>,
    options?: PostgresEnqueueOptions,
  ): Promise<EnqueueResult[]>;
}

type Queryable = Pick<pg.ClientBase, "query">;

/**
 * Names for the statements' texts: a named statement is parsed once per connection (node-postgres keeps
 * track of which), where an unnamed one is parsed (and planned) again each time; the claim and record
 * statements are several kB each, and naming them halved the server's CPU per delivery. The texts are few
 * (parameters carry every value, lists as arrays); the cap only guards against a text that would vary.
 * Not a statement that selects `*`: once prepared, a column added by another process's migration would
 * fail it ("cached plan must not change result type") for as long as its connection lives.
 */
const statementNames = new Map<string, string>();
const MAX_NAMED_STATEMENTS = 500;
const SELECTS_STAR = /\b(?:SELECT|RETURNING)\s+\*|\w\.\*/i;

function statementName(text: string): string | undefined {
  // A named text was tested when it was named: the test reads the whole text (several kB for the
  // worker's record-and-claim), at every round trip before.
  let name = statementNames.get(text);
  if (name !== undefined) return name;
  if (SELECTS_STAR.test(text)) return undefined;
  if (statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `plant_store_${statementNames.size}`;
    statementNames.set(text, name);
  }
  return name;
}

/** Runs an operation on a client (or the pool), one round trip per statement. */
function runOperation<R>(client: Queryable, operation: Operation<R>): Promise<R> {
  const runner: StepRunner<Promise<unknown>> = {
    dialect: postgresDialect,
    wake: () => client.query(`SELECT pg_notify('${OUTBOX_NOTIFY_CHANNEL}', '')`),
    reusePlans: () => client.query("SET LOCAL plan_cache_mode = force_generic_plan"),
    async query(text, values, kind) {
      // Without parameters, a simple query: the schema's DDL is several statements in one.
      const name = values.length === 0 ? undefined : statementName(text);
      const result =
        values.length === 0
          ? await client.query(text)
          : await client.query(name === undefined ? { text, values } : { name, text, values });
      return kind === "rows" ? result.rows : (result.rowCount ?? 0);
    },
  };
  return runOperationAsync(operation, (step) => runStep(step, runner));
}

/**
 * The shared outbox in PostgreSQL. Claims lock candidate rows with `FOR UPDATE SKIP LOCKED` and
 * re-check the lease on the locked row, so processes on several machines split the due work and
 * no delivery is held by two workers at once; `NOTIFY` (delivered on commit) wakes every process
 * when work is added.
 */
export async function createPostgresOutbox<Events extends EventMap = EventMap>(
  poolOrUrl: pg.Pool | string,
  options: PostgresOutboxOptions<Events> = {},
): Promise<PostgresOutbox<Events>> {
  const owned = typeof poolOrUrl === "string";
  const pool =
    typeof poolOrUrl === "string"
      ? // Without a lock timeout, a table lock held elsewhere would hang every write (and the admin
        // request waiting on it) for as long as the lock is held, instead of failing clearly.
        new pg.Pool({ connectionString: poolOrUrl, max: 10, lock_timeout: options.lockTimeoutMs ?? 5000 })
      : poolOrUrl;
  // An idle pooled connection that the server ends (restart, failover, pg_terminate_backend) is an
  // 'error' event on the pool; with no listener it would be an uncaught exception that kills the
  // process. The pool drops that connection and the next query opens a new one.
  if (owned) pool.on("error", (error) => options.onError?.(error));
  let listener: pg.PoolClient | undefined;
  let listening = false;
  let closed = false;

  // LISTEN holds one pooled connection for the outbox's life.
  async function listen(notify: () => void): Promise<void> {
    if (closed) return;
    const client = await pool.connect();
    if (closed) {
      client.release();
      return;
    }
    listener = client;
    client.on("notification", notify);
    client.on("error", (error) => {
      options.onError?.(error);
      listener = undefined;
      client.release(error);
      if (!closed)
        setTimeout(() => void listen(notify).catch((e: Error) => options.onError?.(e)), 1000).unref();
    });
    await client.query(`LISTEN ${OUTBOX_NOTIFY_CHANNEL}`);
  }

  const database: Database<pg.ClientBase> = {
    dialect: postgresDialect,
    store: postgresStatements,
    ownNow: () => POSTGRES_NOW,
    transaction: (operation, join) =>
      join
        ? runOperation(join, operation)
        : withTransaction(pool, (client) => runOperation(client, operation)),
    statements: (operation, join) => runOperation(join ?? pool, operation),
    read: (operation) => runOperation(pool, operation),
    listen(notify) {
      if (listening) return;
      listening = true;
      listen(notify).catch((error: Error) => options.onError?.(error));
    },
    // Once listening, the connection is kept until the outbox closes.
    unlisten() {},
    async close() {
      closed = true;
      if (listener) {
        await listener.query(`UNLISTEN ${OUTBOX_NOTIFY_CHANNEL}`).catch(() => undefined);
        listener.release();
        listener = undefined;
      }
      if (owned) await pool.end();
    },
  };
  const { context, ...outbox } = createDatabaseOutbox(database, options);
  // A schema upgrade's DDL can deadlock against a running process recording an attempt: tried again.
  for (let attempt = 1; ; attempt++) {
    try {
      await database.transaction(migrateSchema(context()));
      break;
    } catch (error) {
      if ((error as { code?: unknown }).code !== DEADLOCK_DETECTED || attempt >= 5) {
        if (owned) await pool.end();
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt + Math.random() * 50));
    }
  }
  return {
    ...outbox,
    enqueue: (message, enqueueOptions) => outbox.enqueue(message as UntypedMessage, enqueueOptions?.client),
    enqueueMany: (messages, enqueueOptions) =>
      outbox.enqueueMany(messages as readonly UntypedMessage[], enqueueOptions?.client),
  } as PostgresOutbox<Events>;
}
