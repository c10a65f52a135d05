import { EventEmitter } from "node:events";
import Database from "better-sqlite3";
import { createSecretCodec } from "./create-secret-codec.js";
import { decideAttempt } from "./decide-attempt.js";
import type {
  ClaimedDelivery,
  EnqueueResult,
  MessageInput,
  Outbox,
  RecordAttemptInput,
  RecordedAttempt,
} from "./outbox.js";
import { OutboxBusyError } from "./outbox-busy-error.js";
import { EndpointNotFoundError } from "./outbox-errors.js";
import {
  type AttemptRow,
  attemptValues,
  type DeliveryRow,
  type EndpointRow,
  type EndpointStatsRow,
  toEndpoint as endpointFromRow,
  endpointStatsSql,
  type MessageRow,
  toAttempt,
  toDelivery,
  toDeliveryState,
  toEndpointState,
  toEndpointStats,
  toMessage,
  toRecordedAttempt,
} from "./outbox-rows.js";
import { type PreparedMessage, prepareMessage } from "./prepare-message.js";
import type { SecretsCipher } from "./secrets-cipher.js";
import { SQLITE_LEGACY_MIGRATION, SQLITE_SCHEMA } from "./sqlite-schema.js";
import { traceEnqueue } from "./trace-enqueue.js";
import { WebhookIdTakenError } from "./webhook-id-taken-error.js";

export interface SqliteOutboxOptions {
  /**
   * `"NORMAL"` (default): WAL commits are not synced, so a power loss can roll back the last
   * transactions (a process crash cannot). `"FULL"`: every commit is synced before it returns.
   */
  synchronous?: "NORMAL" | "FULL";
  /**
   * While a worker listens (`onWork`), how often to look for commits by other processes (a CLI adding a
   * plant), in ms; default 100. A look is one `PRAGMA data_version`, not a query; 0 turns it off, leaving
   * such writes to the worker's poll.
   */
  watchIntervalMs?: number;
  /**
   * Encrypts endpoint tokens and signing secrets at rest (e.g. `createAesGcmCipher`). Values stored in
   * plain text before still read; `reencryptEndpoints` converts them.
   */
  secretsCipher?: SecretsCipher;
}

/** The queue as seen through SQLite: `enqueue` writes synchronously, joining a transaction already open on the handle. */
export interface SqliteOutbox extends Outbox {
  /** The handle the outbox writes through (the caller's, or one it opened from a path). */
  readonly db: Database.Database;
  /**
   * `enqueue` for use inside the caller's `db.transaction(...)`, which cannot await: it throws
   * (`InvalidMessageError`, `WebhookIdTakenError`) instead of rejecting, so the caller's transaction
   * rolls back with it rather than committing its own rows without the message.
   */
  enqueueSync(message: MessageInput): EnqueueResult;
  /**
   * Rewrites every endpoint's token and secrets under the cipher's current key (plain ones included), in
   * one transaction; answers how many endpoints changed.
   */
  reencryptEndpoints(): Promise<number>;
}

const hasColumn = (db: Database.Database, table: string, column: string) =>
  db
    .prepare<[string, string], { found: number }>(
      "SELECT count(*) AS found FROM pragma_table_info(?) WHERE name = ?",
    )
    .get(table, column)?.found === 1;

function migrate(db: Database.Database): void {
  db.transaction(() => {
    db.exec(SQLITE_SCHEMA);
    // An outbox made by 0.1 queued plants in tables of its own; its rows move over with their ids.
    if (hasColumn(db, "deliveries", "plant_id") && hasColumn(db, "plants", "body")) {
      if (!hasColumn(db, "endpoints", "last_failure_at"))
        db.exec("ALTER TABLE endpoints ADD COLUMN last_failure_at INTEGER");
      db.exec(SQLITE_LEGACY_MIGRATION);
    }
    // Added in 0.3: messages queued before carry no trace context (NULL).
    if (!hasColumn(db, "webhook_messages", "traceparent"))
      db.exec("ALTER TABLE webhook_messages ADD COLUMN traceparent TEXT");
  }).immediate();
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown }).code === "SQLITE_CONSTRAINT_UNIQUE";
}

/**
 * The embedded outbox in one SQLite file. WAL lets CLI commands write while `serve` reads, and every
 * write of the outbox's own is a `BEGIN IMMEDIATE` transaction, so two processes never claim the same
 * row: SQLite has one writer at a time and the busy timeout queues the rest.
 *
 * Given the caller's `Database`, `enqueue` called inside the caller's `db.transaction(...)` is part of
 * that transaction: rolled back with it, visible to workers only once it commits.
 */
export function createSqliteOutbox(
  pathOrDb: string | Database.Database,
  options: SqliteOutboxOptions = {},
): SqliteOutbox {
  const owned = typeof pathOrDb === "string";
  const db = typeof pathOrDb === "string" ? new Database(pathOrDb) : pathOrDb;
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 10000");
  db.pragma("foreign_keys = ON");
  db.pragma(`synchronous = ${options.synchronous === "FULL" ? "FULL" : "NORMAL"}`);
  migrate(db);
  const events = new EventEmitter();
  const notify = () => events.emit("work");

  // Work enqueued inside the caller's transaction is announced after it ends: a worker sharing this
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

  // SQLite has no NOTIFY: while someone listens for work, another process's commit (a CLI `plants add`)
  // is noticed by PRAGMA data_version, which changes only when another connection commits. Reading it
  // touches no table, so it can run far more often than a claim query.
  const dataVersion = db.prepare<[], number>("PRAGMA data_version").pluck();
  const watchIntervalMs = options.watchIntervalMs ?? 100;
  let watcher: NodeJS.Timeout | undefined;
  let seenVersion = 0;
  function watch(): void {
    if (watcher || watchIntervalMs <= 0) return;
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
    if (watcher && events.listenerCount("work") === 0) {
      clearInterval(watcher);
      watcher = undefined;
    }
  }

  /** The worker's writes never join a caller's transaction: they would be rolled back with it. */
  function ownTransactionOnly(what: string): void {
    if (db.inTransaction)
      throw new OutboxBusyError(`Cannot ${what} while the shared SQLite handle is inside a transaction`);
  }

  const codec = createSecretCodec(options.secretsCipher);
  const toEndpoint = (row: EndpointRow) => endpointFromRow(row, codec.open);
  const getEndpointRow = db.prepare<[number], EndpointRow>("SELECT * FROM webhook_endpoints WHERE id = ?");
  const getDeliveryRow = db.prepare<[number], DeliveryRow>("SELECT * FROM webhook_deliveries WHERE id = ?");

  const insertMessage = db.prepare<[string, string | null, string, number, string], { id: number }>(
    `INSERT INTO webhook_messages (webhook_id, idempotency_key, payload, created_at, traceparent) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (idempotency_key) DO NOTHING RETURNING id`,
  );
  const messageByKey = db.prepare<[string], MessageRow>(
    "SELECT * FROM webhook_messages WHERE idempotency_key = ?",
  );
  const queueDeliveries = db.prepare<[number, string, number, number, number]>(
    `INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, status, next_attempt_at, created_at, updated_at)
     SELECT ?, id, ?, 'pending', ?, ?, ? FROM webhook_endpoints WHERE status = 'active'`,
  );
  // Runs as a savepoint inside a transaction the caller has open, and as its own transaction otherwise.
  const enqueue = db.transaction((message: PreparedMessage, traceparent: string): EnqueueResult => {
    const now = Date.now();
    let inserted: { id: number } | undefined;
    try {
      inserted = insertMessage.get(
        message.webhookId,
        message.idempotencyKey,
        message.payload,
        now,
        traceparent,
      );
    } catch (error) {
      if (isUniqueViolation(error))
        throw new WebhookIdTakenError(`webhook id ${message.webhookId} is already taken by another message`, {
          cause: error,
        });
      throw error;
    }
    if (!inserted) {
      const first = messageByKey.get(message.idempotencyKey as string) as MessageRow;
      return { messageId: Number(first.id), webhookId: first.webhook_id, duplicate: true, deliveries: 0 };
    }
    const { changes } = queueDeliveries.run(inserted.id, message.webhookId, now, now, now);
    return { messageId: inserted.id, webhookId: message.webhookId, duplicate: false, deliveries: changes };
  });

  // Walks the (endpoint_id, status, next_attempt_at) index once per active endpoint and stops after
  // `per` rows, so a claim costs O(endpoints × per) however large the backlog is. Leased rows are
  // skipped inside the walk; there are at most as many of them as attempts in flight.
  const selectDue = db.prepare<
    [{ now: number; excluded: string; per: number; limit: number }],
    { id: number }
  >(
    `SELECT d.id FROM webhook_endpoints e JOIN webhook_deliveries d ON d.id IN (
       SELECT x.id FROM webhook_deliveries x
       WHERE x.endpoint_id = e.id AND x.status = 'pending' AND x.next_attempt_at <= @now
         AND (x.lease_until IS NULL OR x.lease_until <= @now)
       ORDER BY x.next_attempt_at, x.id LIMIT @per)
     WHERE e.status = 'active' AND e.id NOT IN (SELECT value FROM json_each(@excluded))
     ORDER BY d.next_attempt_at, d.id LIMIT @limit`,
  );
  const takeLease = db.prepare<[string, number, number], DeliveryRow>(
    "UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ? WHERE id = ? RETURNING *",
  );
  const getPayload = db.prepare<[number], { payload: string; traceparent: string | null }>(
    "SELECT payload, traceparent FROM webhook_messages WHERE id = ?",
  );

  const claim = db.transaction(
    (workerId: string, limit: number, leaseMs: number, perEndpoint: number, excluded: readonly number[]) => {
      const now = Date.now();
      const ids = selectDue.all({ now, excluded: JSON.stringify(excluded), per: perEndpoint, limit });
      const leaseUntil = now + leaseMs;
      // One parse of an endpoint's secrets per claim, not one per delivery.
      const endpoints = new Map<number, ReturnType<typeof toEndpoint>>();
      const claimed: ClaimedDelivery[] = [];
      for (const { id } of ids) {
        const row = takeLease.get(workerId, leaseUntil, id) as DeliveryRow;
        const { payload, traceparent } = getPayload.get(Number(row.message_id)) as {
          payload: string;
          traceparent: string | null;
        };
        const endpointId = Number(row.endpoint_id);
        let endpoint = endpoints.get(endpointId);
        if (!endpoint) {
          endpoint = toEndpoint(getEndpointRow.get(endpointId) as EndpointRow);
          endpoints.set(endpointId, endpoint);
        }
        claimed.push({
          ...toDelivery(row),
          body: payload,
          endpoint,
          leaseUntil: new Date(leaseUntil),
          ...(traceparent === null ? {} : { traceparent }),
        });
      }
      return claimed;
    },
  );

  const insertAttempt = db.prepare(
    `INSERT INTO webhook_attempts (delivery_id, attempt, worker_id, started_at, duration_ms, status, error, response_body, outcome)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const finishDelivery = db.prepare(
    `UPDATE webhook_deliveries SET status = ?, attempt_count = attempt_count + 1, round_attempts = round_attempts + 1,
       next_attempt_at = ?, last_status = ?, last_error = ?, lease_owner = NULL, lease_until = NULL, updated_at = ?
     WHERE id = ?`,
  );
  const countLateAttempt = db.prepare(
    "UPDATE webhook_deliveries SET attempt_count = attempt_count + 1 WHERE id = ?",
  );
  // Guarded so that the common case (no change) writes nothing to the endpoint row.
  const endpointSucceeded = db.prepare(
    "UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL",
  );
  const endpointFailed = db.prepare(
    `UPDATE webhook_endpoints SET failing_since = @failingSince, last_failure_at = @lastFailureAt,
       status = CASE WHEN @reason IS NULL THEN status ELSE 'disabled' END,
       disabled_reason = COALESCE(@reason, disabled_reason)
     WHERE id = @id`,
  );

  const recordAttempt = db.transaction((input: RecordAttemptInput): RecordedAttempt => {
    const row = getDeliveryRow.get(input.deliveryId);
    if (!row) return { held: false, outcome: input.outcome };
    const endpointId = Number(row.endpoint_id);
    const endpointRow = getEndpointRow.get(endpointId);
    const now = Date.now();
    const decision = decideAttempt(
      input,
      toDeliveryState(row),
      endpointRow ? toEndpointState(endpointRow) : undefined,
      { storeNow: now, callerNow: now },
    );
    if (decision.endpoint?.kind === "succeeded") endpointSucceeded.run(endpointId);
    else if (decision.endpoint?.kind === "failed")
      endpointFailed.run({
        id: endpointId,
        failingSince: decision.endpoint.failingSince,
        lastFailureAt: decision.endpoint.lastFailureAt,
        reason: decision.endpoint.disabledReason ?? null,
      });
    insertAttempt.run(...attemptValues(input, decision));
    const change = decision.delivery;
    if (change.kind === "finished")
      finishDelivery.run(
        change.status,
        change.nextAttemptAt,
        change.lastStatus,
        change.lastError,
        change.updatedAt,
        input.deliveryId,
      );
    else countLateAttempt.run(input.deliveryId);
    return toRecordedAttempt(decision);
  });

  const recordAttempts = db.transaction((inputs: readonly RecordAttemptInput[]) =>
    inputs.map((input) => recordAttempt(input)),
  );

  const replay = db.transaction((endpointId: number, since: number) => {
    if (!getEndpointRow.get(endpointId)) throw new EndpointNotFoundError(`No endpoint ${endpointId}`);
    const now = Date.now();
    const result = db
      .prepare(
        `INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, status, next_attempt_at, created_at, updated_at)
         SELECT id, @endpointId, webhook_id, 'pending', @now, @now, @now FROM webhook_messages
         WHERE created_at >= @since ORDER BY id
         ON CONFLICT (webhook_id, endpoint_id) DO UPDATE SET
           status = 'pending', round_attempts = 0, next_attempt_at = @now, updated_at = @now`,
      )
      .run({ endpointId, now, since });
    return result.changes;
  });

  const finishedBatch = db.prepare<[number, number], { id: number }>(
    `SELECT id FROM webhook_deliveries WHERE status IN ('delivered', 'failed') AND updated_at < ?
     ORDER BY updated_at LIMIT ?`,
  );
  const deleteAttempts = db.prepare<[string]>(
    "DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT value FROM json_each(?))",
  );
  const deleteDeliveries = db.prepare<[string]>(
    "DELETE FROM webhook_deliveries WHERE id IN (SELECT value FROM json_each(?))",
  );
  const deleteMessages = db.prepare<[number, number]>(
    `DELETE FROM webhook_messages WHERE id IN (
       SELECT m.id FROM webhook_messages m WHERE m.created_at < ?
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = m.id)
       ORDER BY m.created_at LIMIT ?)`,
  );
  const sweep = db.transaction((olderThanMs: number, batchSize: number) => {
    const cutoff = Date.now() - olderThanMs;
    const ids = JSON.stringify(finishedBatch.all(cutoff, batchSize).map((row) => row.id));
    const attempts = deleteAttempts.run(ids).changes;
    const deliveries = deleteDeliveries.run(ids).changes;
    const messages = deleteMessages.run(cutoff, batchSize).changes;
    return { deliveries, attempts, messages };
  });

  const reencrypt = db.transaction(() => {
    const rows = db
      .prepare<[], Pick<EndpointRow, "id" | "token" | "secrets">>(
        "SELECT id, token, secrets FROM webhook_endpoints",
      )
      .all();
    const update = db.prepare<[string, string, number]>(
      "UPDATE webhook_endpoints SET token = ?, secrets = ? WHERE id = ?",
    );
    let changed = 0;
    for (const row of rows) {
      if (codec.isCurrent(row.token) && codec.isCurrent(row.secrets)) continue;
      update.run(codec.seal(codec.open(row.token)), codec.seal(codec.open(row.secrets)), Number(row.id));
      changed += 1;
    }
    return changed;
  });

  function enqueueSync(message: MessageInput): EnqueueResult {
    const prepared = prepareMessage(message);
    const result = traceEnqueue(prepared.webhookId, (traceparent) =>
      db.inTransaction ? enqueue(prepared, traceparent) : enqueue.immediate(prepared, traceparent),
    );
    if (result.deliveries > 0) announce();
    return result;
  }

  return {
    db,
    enqueueSync,
    async enqueue(message) {
      return enqueueSync(message);
    },
    async getMessage(id) {
      const row = db.prepare<[number], MessageRow>("SELECT * FROM webhook_messages WHERE id = ?").get(id);
      return row ? toMessage(row) : undefined;
    },
    async addEndpoint(input) {
      const row = db
        .prepare<[string, string, string, number], EndpointRow>(
          "INSERT INTO webhook_endpoints (url, token, secrets, created_at) VALUES (?, ?, ?, ?) RETURNING *",
        )
        .get(
          input.url,
          codec.seal(input.token),
          codec.seal(JSON.stringify(input.secrets)),
          Date.now(),
        ) as EndpointRow;
      return toEndpoint(row);
    },
    async getEndpoint(id) {
      const row = getEndpointRow.get(id);
      return row ? toEndpoint(row) : undefined;
    },
    async listEndpoints() {
      return db
        .prepare<[], EndpointRow>("SELECT * FROM webhook_endpoints ORDER BY id")
        .all()
        .map((row) => toEndpoint(row));
    },
    async setEndpointStatus(id, status, reason) {
      const row = db
        .prepare<[{ status: string; reason: string | null; id: number }], EndpointRow>(
          `UPDATE webhook_endpoints SET status = @status, disabled_reason = @reason,
             failing_since = CASE WHEN @status = 'active' THEN NULL ELSE failing_since END
           WHERE id = @id RETURNING *`,
        )
        .get({ status, reason: status === "disabled" ? (reason ?? "disabled by an operator") : null, id });
      if (row && status === "active") announce();
      return row ? toEndpoint(row) : undefined;
    },
    async setEndpointSecrets(id, secrets) {
      const row = db
        .prepare<[string, number], EndpointRow>(
          "UPDATE webhook_endpoints SET secrets = ? WHERE id = ? RETURNING *",
        )
        .get(codec.seal(JSON.stringify(secrets)), id);
      return row ? toEndpoint(row) : undefined;
    },
    async setEndpointToken(id, token) {
      const row = db
        .prepare<[string, number], EndpointRow>(
          "UPDATE webhook_endpoints SET token = ? WHERE id = ? RETURNING *",
        )
        .get(codec.seal(token), id);
      return row ? toEndpoint(row) : undefined;
    },
    async removeEndpoint(id) {
      return db.prepare("DELETE FROM webhook_endpoints WHERE id = ?").run(id).changes > 0;
    },
    async reencryptEndpoints() {
      ownTransactionOnly("re-encrypt endpoints");
      // The values replaced would otherwise stay readable in the file's free space and in the WAL:
      // secure_delete zeroes what the updates free, and the checkpoint moves the pages into the file
      // and empties the WAL.
      const secureDelete = db.pragma("secure_delete", { simple: true }) as number;
      db.pragma("secure_delete = ON");
      try {
        const changed = reencrypt.immediate();
        db.pragma("wal_checkpoint(TRUNCATE)");
        return changed;
      } finally {
        db.pragma(`secure_delete = ${secureDelete ? "ON" : "OFF"}`);
      }
    },
    async claimDue(workerId, limit, leaseMs, claimOptions = {}) {
      if (limit <= 0) return [];
      // Rows written inside the caller's open transaction are not committed: claim once it ends.
      if (db.inTransaction) {
        announce();
        return [];
      }
      return claim.immediate(
        workerId,
        limit,
        leaseMs,
        claimOptions.perEndpointLimit ?? limit,
        claimOptions.excludeEndpointIds ?? [],
      );
    },
    async recordAttempt(input) {
      ownTransactionOnly("record an attempt");
      return recordAttempt.immediate(input);
    },
    async recordAttempts(inputs) {
      ownTransactionOnly("record attempts");
      return recordAttempts.immediate(inputs);
    },
    async release(deliveryId, workerId) {
      ownTransactionOnly("release a delivery");
      db.prepare(
        "UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?",
      ).run(deliveryId, workerId);
      announce();
    },
    async getDelivery(id) {
      const row = getDeliveryRow.get(id);
      return row ? toDelivery(row) : undefined;
    },
    async listDeliveries(listOptions = {}) {
      const rows = db
        .prepare<
          [{ status: string | null; endpointId: number | null; messageId: number | null; limit: number }],
          DeliveryRow
        >(
          `SELECT * FROM webhook_deliveries WHERE (@status IS NULL OR status = @status)
             AND (@endpointId IS NULL OR endpoint_id = @endpointId)
             AND (@messageId IS NULL OR message_id = @messageId)
           ORDER BY id DESC LIMIT @limit`,
        )
        .all({
          status: listOptions.status ?? null,
          endpointId: listOptions.endpointId ?? null,
          messageId: listOptions.messageId ?? null,
          limit: listOptions.limit ?? 100,
        });
      return rows.map(toDelivery);
    },
    async listAttempts(deliveryId) {
      return db
        .prepare<[number], AttemptRow>("SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY id")
        .all(deliveryId)
        .map(toAttempt);
    },
    async endpointStats(since) {
      return db
        .prepare<[number], EndpointStatsRow>(endpointStatsSql("?"))
        .all(since.getTime())
        .map(toEndpointStats);
    },
    async retryDelivery(id) {
      const now = Date.now();
      const row = db
        .prepare<[{ now: number; id: number }], DeliveryRow>(
          `UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0, next_attempt_at = @now, updated_at = @now
           WHERE id = @id RETURNING *`,
        )
        .get({ now, id });
      if (row) announce();
      return row ? toDelivery(row) : undefined;
    },
    async replay(endpointId, since) {
      const count = replay.immediate(endpointId, since.getTime());
      announce();
      return count;
    },
    async sweep(sweepOptions) {
      ownTransactionOnly("sweep");
      return sweep.immediate(sweepOptions.olderThanMs, sweepOptions.batchSize ?? 500);
    },
    onWork(listener) {
      events.on("work", listener);
      watch();
      return () => {
        events.off("work", listener);
        unwatch();
      };
    },
    async close() {
      events.removeAllListeners();
      unwatch();
      if (owned) db.close();
    },
  };
}
