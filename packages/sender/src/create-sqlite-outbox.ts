import { EventEmitter } from "node:events";
import Database from "better-sqlite3";
import { failingReason } from "./failing-reason.js";
import { newWebhookId } from "./new-webhook-id.js";
import type {
  ClaimedDelivery,
  DeliveryStatus,
  Outbox,
  RecordAttemptInput,
  RecordedAttempt,
} from "./outbox.js";
import { EndpointNotFoundError } from "./outbox-errors.js";
import {
  type AttemptRow,
  type DeliveryRow,
  type EndpointRow,
  type PlantRow,
  toAttempt,
  toDelivery,
  toEndpoint,
  toPlant,
} from "./outbox-rows.js";
import { plantBody } from "./plant-body.js";
import { SQLITE_ADDED_COLUMNS, SQLITE_SCHEMA } from "./sqlite-schema.js";

const STATUS_AFTER: Record<string, DeliveryStatus> = {
  delivered: "delivered",
  retrying: "pending",
  failed: "failed",
  disabled: "failed",
};

/**
 * The embedded outbox in one SQLite file. WAL lets CLI commands write while `serve` reads, and
 * every write is a `BEGIN IMMEDIATE` transaction, so two processes never claim the same row:
 * SQLite has one writer at a time and the busy timeout queues the rest.
 */
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
}

export function createSqliteOutbox(
  pathOrDb: string | Database.Database,
  options: SqliteOutboxOptions = {},
): Outbox {
  const owned = typeof pathOrDb === "string";
  const db = typeof pathOrDb === "string" ? new Database(pathOrDb) : pathOrDb;
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 10000");
  db.pragma("foreign_keys = ON");
  db.pragma(`synchronous = ${options.synchronous === "FULL" ? "FULL" : "NORMAL"}`);
  db.exec(SQLITE_SCHEMA);
  for (const [table, column, type] of SQLITE_ADDED_COLUMNS) {
    const columns = db.prepare<[], { name: string }>(`PRAGMA table_info(${table})`).all();
    if (!columns.some((existing) => existing.name === column))
      db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
  }
  const events = new EventEmitter();
  const notify = () => events.emit("work");

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

  const getEndpointRow = db.prepare<[number], EndpointRow>("SELECT * FROM endpoints WHERE id = ?");
  const getDeliveryRow = db.prepare<[number], DeliveryRow>("SELECT * FROM deliveries WHERE id = ?");

  const addPlant = db.transaction((name: string, tag: string | null) => {
    const now = Date.now();
    const webhookId = newWebhookId();
    const { id } = db
      .prepare<[string, string | null, string, number], { id: number }>(
        "INSERT INTO plants (name, tag, webhook_id, body, created_at) VALUES (?, ?, ?, '', ?) RETURNING id",
      )
      .get(name, tag, webhookId, now) as { id: number };
    db.prepare("UPDATE plants SET body = ? WHERE id = ?").run(plantBody({ id, name, tag }), id);
    const deliveries = db
      .prepare<[number, string, number, number, number], DeliveryRow>(
        `INSERT INTO deliveries (plant_id, endpoint_id, webhook_id, status, next_attempt_at, created_at, updated_at)
         SELECT ?, id, ?, 'pending', ?, ?, ? FROM endpoints WHERE status = 'active' RETURNING *`,
      )
      .all(id, webhookId, now, now, now);
    const plant = db.prepare<[number], PlantRow>("SELECT * FROM plants WHERE id = ?").get(id) as PlantRow;
    return { plant: toPlant(plant), deliveries: deliveries.map(toDelivery) };
  });

  // Walks the (endpoint_id, status, next_attempt_at) index once per active endpoint and stops after
  // `per` rows, so a claim costs O(endpoints × per) however large the backlog is. Leased rows are
  // skipped inside the walk; there are at most as many of them as attempts in flight.
  const selectDue = db.prepare<
    [{ now: number; excluded: string; per: number; limit: number }],
    { id: number }
  >(
    `SELECT d.id FROM endpoints e JOIN deliveries d ON d.id IN (
       SELECT x.id FROM deliveries x
       WHERE x.endpoint_id = e.id AND x.status = 'pending' AND x.next_attempt_at <= @now
         AND (x.lease_until IS NULL OR x.lease_until <= @now)
       ORDER BY x.next_attempt_at, x.id LIMIT @per)
     WHERE e.status = 'active' AND e.id NOT IN (SELECT value FROM json_each(@excluded))
     ORDER BY d.next_attempt_at, d.id LIMIT @limit`,
  );
  const takeLease = db.prepare<[string, number, number], DeliveryRow>(
    "UPDATE deliveries SET lease_owner = ?, lease_until = ? WHERE id = ? RETURNING *",
  );
  const getBody = db.prepare<[number], { body: string }>("SELECT body FROM plants WHERE id = ?");

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
        const { body } = getBody.get(Number(row.plant_id)) as { body: string };
        const endpointId = Number(row.endpoint_id);
        let endpoint = endpoints.get(endpointId);
        if (!endpoint) {
          endpoint = toEndpoint(getEndpointRow.get(endpointId) as EndpointRow);
          endpoints.set(endpointId, endpoint);
        }
        claimed.push({ ...toDelivery(row), body, endpoint, leaseUntil: new Date(leaseUntil) });
      }
      return claimed;
    },
  );

  const insertAttempt = db.prepare(
    `INSERT INTO attempts (delivery_id, attempt, worker_id, started_at, duration_ms, status, error, response_body, outcome)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const finishAttempt = db.prepare(
    `UPDATE deliveries SET status = ?, attempt_count = attempt_count + 1, round_attempts = round_attempts + 1,
       next_attempt_at = ?, last_status = ?, last_error = ?, lease_owner = NULL, lease_until = NULL, updated_at = ?
     WHERE id = ?`,
  );
  // A late attempt keeps its own number, so the lease holder's next attempt never repeats it.
  const countLateAttempt = db.prepare("UPDATE deliveries SET attempt_count = attempt_count + 1 WHERE id = ?");
  // Guarded so that the common case (no change) writes nothing to the endpoint row.
  const endpointSucceeded = db.prepare(
    "UPDATE endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL",
  );
  // The failing run starts at the first failure after a success, or after a gap longer than `gap` (the
  // endpoint had no work in between, so it was not failing continuously).
  const endpointFailing = db.prepare<
    [{ id: number; now: number; gap: number }],
    { failing_since: number; status: string }
  >(
    `UPDATE endpoints SET
       failing_since = CASE WHEN failing_since IS NULL OR last_failure_at IS NULL OR last_failure_at < @now - @gap
         THEN @now ELSE failing_since END,
       last_failure_at = @now
     WHERE id = @id RETURNING failing_since, status`,
  );
  const disableEndpoint = db.prepare(
    "UPDATE endpoints SET status = 'disabled', disabled_reason = ? WHERE id = ?",
  );

  const recordAttempt = db.transaction((input: RecordAttemptInput): RecordedAttempt => {
    const row = getDeliveryRow.get(input.deliveryId);
    if (!row) return { held: false, outcome: input.outcome };
    const held =
      row.lease_owner === input.workerId &&
      row.status === "pending" &&
      (input.leaseUntil === undefined || Number(row.lease_until) === input.leaseUntil.getTime());
    const { attempt } = input;
    const now = Date.now();
    const endpointId = Number(row.endpoint_id);
    let outcome = input.outcome;
    let disabledEndpoint: string | undefined;
    // Only the lease holder speaks for the endpoint: a late result may predate what is stored.
    if (held && input.endpointSucceeded) endpointSucceeded.run(endpointId);
    else if (held) {
      const period = input.disableAfterMs;
      const failing = endpointFailing.get({
        id: endpointId,
        now,
        gap: input.failureGapMs ?? period ?? Number.MAX_SAFE_INTEGER,
      });
      if (failing?.status === "active") {
        const failingFor = now - Number(failing.failing_since);
        disabledEndpoint =
          input.disableEndpoint ??
          (period !== undefined && failingFor >= period ? failingReason(failingFor) : undefined);
        if (disabledEndpoint !== undefined) {
          disableEndpoint.run(disabledEndpoint, endpointId);
          outcome = "disabled";
        }
      }
    }
    insertAttempt.run(
      input.deliveryId,
      Number(row.attempt_count) + 1,
      input.workerId,
      attempt.startedAt.getTime(),
      attempt.durationMs,
      attempt.status,
      attempt.error,
      attempt.responseBody,
      outcome,
    );
    if (held) {
      finishAttempt.run(
        STATUS_AFTER[outcome],
        input.nextAttemptAt?.getTime() ?? Number(row.next_attempt_at),
        attempt.status,
        attempt.error,
        now,
        input.deliveryId,
      );
    } else {
      countLateAttempt.run(input.deliveryId);
    }
    return disabledEndpoint === undefined ? { held, outcome } : { held, outcome, disabledEndpoint };
  });

  const recordAttempts = db.transaction((inputs: readonly RecordAttemptInput[]) =>
    inputs.map((input) => recordAttempt(input)),
  );

  const replay = db.transaction((endpointId: number, since: number) => {
    if (!getEndpointRow.get(endpointId)) throw new EndpointNotFoundError(`No endpoint ${endpointId}`);
    const now = Date.now();
    const result = db
      .prepare(
        `INSERT INTO deliveries (plant_id, endpoint_id, webhook_id, status, next_attempt_at, created_at, updated_at)
         SELECT id, @endpointId, webhook_id, 'pending', @now, @now, @now FROM plants WHERE created_at >= @since ORDER BY id
         ON CONFLICT (webhook_id, endpoint_id) DO UPDATE SET
           status = 'pending', round_attempts = 0, next_attempt_at = @now, updated_at = @now`,
      )
      .run({ endpointId, now, since });
    return result.changes;
  });

  return {
    async addPlant(input) {
      const result = addPlant.immediate(input.name, input.tag ?? null);
      notify();
      return result;
    },
    async listPlants(limit = 100) {
      return db
        .prepare<[number], PlantRow>("SELECT * FROM plants ORDER BY id DESC LIMIT ?")
        .all(limit)
        .map(toPlant);
    },
    async addEndpoint(input) {
      const row = db
        .prepare<[string, string, string, number], EndpointRow>(
          "INSERT INTO endpoints (url, token, secrets, created_at) VALUES (?, ?, ?, ?) RETURNING *",
        )
        .get(input.url, input.token, JSON.stringify(input.secrets), Date.now()) as EndpointRow;
      return toEndpoint(row);
    },
    async getEndpoint(id) {
      const row = getEndpointRow.get(id);
      return row ? toEndpoint(row) : undefined;
    },
    async listEndpoints() {
      return db.prepare<[], EndpointRow>("SELECT * FROM endpoints ORDER BY id").all().map(toEndpoint);
    },
    async setEndpointStatus(id, status, reason) {
      const row = db
        .prepare<[{ status: string; reason: string | null; id: number }], EndpointRow>(
          `UPDATE endpoints SET status = @status, disabled_reason = @reason,
             failing_since = CASE WHEN @status = 'active' THEN NULL ELSE failing_since END
           WHERE id = @id RETURNING *`,
        )
        .get({ status, reason: status === "disabled" ? (reason ?? "disabled by an operator") : null, id });
      if (row && status === "active") notify();
      return row ? toEndpoint(row) : undefined;
    },
    async setEndpointSecrets(id, secrets) {
      const row = db
        .prepare<[string, number], EndpointRow>("UPDATE endpoints SET secrets = ? WHERE id = ? RETURNING *")
        .get(JSON.stringify(secrets), id);
      return row ? toEndpoint(row) : undefined;
    },
    async setEndpointToken(id, token) {
      const row = db
        .prepare<[string, number], EndpointRow>("UPDATE endpoints SET token = ? WHERE id = ? RETURNING *")
        .get(token, id);
      return row ? toEndpoint(row) : undefined;
    },
    async removeEndpoint(id) {
      return db.prepare("DELETE FROM endpoints WHERE id = ?").run(id).changes > 0;
    },
    async claimDue(workerId, limit, leaseMs, options = {}) {
      if (limit <= 0) return [];
      return claim.immediate(
        workerId,
        limit,
        leaseMs,
        options.perEndpointLimit ?? limit,
        options.excludeEndpointIds ?? [],
      );
    },
    async recordAttempt(input) {
      return recordAttempt.immediate(input);
    },
    async recordAttempts(inputs) {
      return recordAttempts.immediate(inputs);
    },
    async release(deliveryId, workerId) {
      db.prepare(
        "UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?",
      ).run(deliveryId, workerId);
      notify();
    },
    async getDelivery(id) {
      const row = getDeliveryRow.get(id);
      return row ? toDelivery(row) : undefined;
    },
    async listDeliveries(options = {}) {
      const rows = db
        .prepare<[{ status: string | null; endpointId: number | null; limit: number }], DeliveryRow>(
          `SELECT * FROM deliveries WHERE (@status IS NULL OR status = @status)
             AND (@endpointId IS NULL OR endpoint_id = @endpointId)
           ORDER BY id DESC LIMIT @limit`,
        )
        .all({
          status: options.status ?? null,
          endpointId: options.endpointId ?? null,
          limit: options.limit ?? 100,
        });
      return rows.map(toDelivery);
    },
    async listAttempts(deliveryId) {
      return db
        .prepare<[number], AttemptRow>("SELECT * FROM attempts WHERE delivery_id = ? ORDER BY id")
        .all(deliveryId)
        .map(toAttempt);
    },
    async retryDelivery(id) {
      const now = Date.now();
      const row = db
        .prepare<[{ now: number; id: number }], DeliveryRow>(
          `UPDATE deliveries SET status = 'pending', round_attempts = 0, next_attempt_at = @now, updated_at = @now
           WHERE id = @id RETURNING *`,
        )
        .get({ now, id });
      if (row) notify();
      return row ? toDelivery(row) : undefined;
    },
    async replay(endpointId, since) {
      const count = replay.immediate(endpointId, since.getTime());
      notify();
      return count;
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
