import { EventEmitter } from "node:events";
import pg from "pg";
import { failingReason } from "./failing-reason.js";
import { newWebhookId } from "./new-webhook-id.js";
import {
  type ClaimedDelivery,
  type DeliveryStatus,
  OUTBOX_NOTIFY_CHANNEL,
  type Outbox,
  type RecordedAttempt,
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
import { POSTGRES_SCHEMA, POSTGRES_SCHEMA_COLUMNS, POSTGRES_SCHEMA_OBJECTS } from "./postgres-schema.js";

const STATUS_AFTER: Record<string, DeliveryStatus> = {
  delivered: "delivered",
  retrying: "pending",
  failed: "failed",
  disabled: "failed",
};

// Serialises schema creation when several store processes start at once.
const MIGRATION_LOCK = 0x706c616e;

const DEADLOCK_DETECTED = "40P01";

/**
 * The database's clock in Unix ms, fixed for one statement. Every time the store compares or stores
 * (leases, due times, failing periods) comes from it, so workers on machines whose clocks disagree still
 * agree on when a lease ends: with each process's own clock, a machine running ahead would take over
 * leases early and attempt a delivery another worker is still sending.
 */
const NOW_MS = "(extract(epoch FROM statement_timestamp()) * 1000)::bigint";

/**
 * Creates what is missing of the schema. `CREATE INDEX IF NOT EXISTS` takes a SHARE lock on its
 * table even when the index exists, which deadlocks against a running process's attempt (it holds
 * ROW EXCLUSIVE on `attempts` and then upgrades on `deliveries`). So a schema that is complete is
 * only looked at, without locks; DDL runs under the advisory lock and is retried on a deadlock.
 */
async function createSchema(
  tx: <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T>,
): Promise<void> {
  const complete = async (client: pg.PoolClient) => {
    const found = await client.query<{ missing: number }>(
      `SELECT (SELECT count(*)::int FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NULL)
            + (SELECT count(*)::int FROM unnest($2::text[]) AS qualified WHERE NOT EXISTS (
                SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass(split_part(qualified, '.', 1))
                  AND attname = split_part(qualified, '.', 2) AND NOT attisdropped)) AS missing`,
      [POSTGRES_SCHEMA_OBJECTS, POSTGRES_SCHEMA_COLUMNS],
    );
    return found.rows[0]?.missing === 0;
  };
  for (let attempt = 1; ; attempt++) {
    try {
      await tx(async (client) => {
        if (await complete(client)) return;
        await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
        if (await complete(client)) return;
        await client.query(POSTGRES_SCHEMA);
      });
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== DEADLOCK_DETECTED || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt + Math.random() * 50));
    }
  }
}

export interface PostgresOutboxOptions {
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

/**
 * The shared outbox in PostgreSQL. Claims lock candidate rows with `FOR UPDATE SKIP LOCKED` and
 * re-check the lease on the locked row, so processes on several machines split the due work and
 * no delivery is held by two workers at once; `NOTIFY` wakes every process when work is added.
 */
export async function createPostgresOutbox(
  poolOrUrl: pg.Pool | string,
  options: PostgresOutboxOptions = {},
): Promise<Outbox> {
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
  const events = new EventEmitter();
  let listener: pg.PoolClient | undefined;
  let listening = false;
  let closed = false;

  async function tx<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  await createSchema(tx);

  const notifySql = `SELECT pg_notify('${OUTBOX_NOTIFY_CHANNEL}', '')`;
  const notifyLocal = () => events.emit("work");

  // LISTEN holds one pooled connection for the outbox's life.
  async function listen(): Promise<void> {
    if (closed) return;
    const client = await pool.connect();
    if (closed) {
      client.release();
      return;
    }
    listener = client;
    client.on("notification", notifyLocal);
    client.on("error", (error) => {
      options.onError?.(error);
      listener = undefined;
      client.release(error);
      if (!closed) setTimeout(() => void listen().catch((e: Error) => options.onError?.(e)), 1000).unref();
    });
    await client.query(`LISTEN ${OUTBOX_NOTIFY_CHANNEL}`);
  }

  const one = async <R extends pg.QueryResultRow>(text: string, values: unknown[]) =>
    (await pool.query<R>(text, values)).rows[0];

  return {
    async addPlant(input) {
      return tx(async (client) => {
        const webhookId = newWebhookId();
        const tag = input.tag ?? null;
        const inserted = await client.query<{ id: string; created_at: string }>(
          `INSERT INTO plants (name, tag, webhook_id, body, created_at) VALUES ($1, $2, $3, '', ${NOW_MS})
           RETURNING id, created_at`,
          [input.name, tag, webhookId],
        );
        const id = Number(inserted.rows[0]?.id);
        const now = Number(inserted.rows[0]?.created_at);
        const plant = await client.query<PlantRow>("UPDATE plants SET body = $1 WHERE id = $2 RETURNING *", [
          plantBody({ id, name: input.name, tag }),
          id,
        ]);
        const deliveries = await client.query<DeliveryRow>(
          `INSERT INTO deliveries (plant_id, endpoint_id, webhook_id, status, next_attempt_at, created_at, updated_at)
           SELECT $1, id, $2, 'pending', $3, $3, $3 FROM endpoints WHERE status = 'active' RETURNING *`,
          [id, webhookId, now],
        );
        // Delivered with the commit, so no process looks before the rows are visible.
        await client.query(notifySql);
        return { plant: toPlant(plant.rows[0] as PlantRow), deliveries: deliveries.rows.map(toDelivery) };
      });
    },
    async listPlants(limit = 100) {
      return (await pool.query<PlantRow>("SELECT * FROM plants ORDER BY id DESC LIMIT $1", [limit])).rows.map(
        toPlant,
      );
    },
    async addEndpoint(input) {
      const row = await one<EndpointRow>(
        `INSERT INTO endpoints (url, token, secrets, created_at) VALUES ($1, $2, $3, ${NOW_MS}) RETURNING *`,
        [input.url, input.token, JSON.stringify(input.secrets)],
      );
      return toEndpoint(row as EndpointRow);
    },
    async getEndpoint(id) {
      const row = await one<EndpointRow>("SELECT * FROM endpoints WHERE id = $1", [id]);
      return row ? toEndpoint(row) : undefined;
    },
    async listEndpoints() {
      return (await pool.query<EndpointRow>("SELECT * FROM endpoints ORDER BY id")).rows.map(toEndpoint);
    },
    async setEndpointStatus(id, status, reason) {
      const row = await one<EndpointRow>(
        `UPDATE endpoints SET status = $1, disabled_reason = $2,
           failing_since = CASE WHEN $1 = 'active' THEN NULL ELSE failing_since END
         WHERE id = $3 RETURNING *`,
        [status, status === "disabled" ? (reason ?? "disabled by an operator") : null, id],
      );
      if (row && status === "active") await pool.query(notifySql);
      return row ? toEndpoint(row) : undefined;
    },
    async setEndpointSecrets(id, secrets) {
      const row = await one<EndpointRow>("UPDATE endpoints SET secrets = $1 WHERE id = $2 RETURNING *", [
        JSON.stringify(secrets),
        id,
      ]);
      return row ? toEndpoint(row) : undefined;
    },
    async setEndpointToken(id, token) {
      const row = await one<EndpointRow>("UPDATE endpoints SET token = $1 WHERE id = $2 RETURNING *", [
        token,
        id,
      ]);
      return row ? toEndpoint(row) : undefined;
    },
    async removeEndpoint(id) {
      return ((await pool.query("DELETE FROM endpoints WHERE id = $1", [id])).rowCount ?? 0) > 0;
    },
    async claimDue(workerId, limit, leaseMs, claimOptions = {}) {
      if (limit <= 0) return [];
      const perEndpoint = claimOptions.perEndpointLimit ?? limit;
      const excluded = [...(claimOptions.excludeEndpointIds ?? [])];
      // Candidates are picked without locks by walking the (endpoint_id, status, next_attempt_at)
      // index per active endpoint, so the cost follows what is claimed, not the backlog; the locking
      // SELECT re-checks each row as it stands after any concurrent claim committed.
      const claimed = await pool.query<DeliveryRow>(
        `WITH candidates AS (
           SELECT due.id FROM endpoints e CROSS JOIN LATERAL (
             SELECT d.id, d.next_attempt_at FROM deliveries d
             WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= ${NOW_MS}
               AND (d.lease_until IS NULL OR d.lease_until <= ${NOW_MS})
             ORDER BY d.next_attempt_at, d.id LIMIT $2
           ) due
           WHERE e.status = 'active' AND NOT (e.id = ANY($1::bigint[]))
           ORDER BY due.next_attempt_at, due.id LIMIT $3
         ), locked AS (
           SELECT d.id FROM deliveries d
           WHERE d.id IN (SELECT id FROM candidates) AND d.status = 'pending'
             AND (d.lease_until IS NULL OR d.lease_until <= ${NOW_MS})
           FOR UPDATE SKIP LOCKED
         )
         UPDATE deliveries d SET lease_owner = $4, lease_until = ${NOW_MS} + $5
         FROM locked WHERE d.id = locked.id RETURNING d.*`,
        [excluded, perEndpoint, limit, workerId, leaseMs],
      );
      if (claimed.rows.length === 0) return [];
      const plantIds = claimed.rows.map((row) => Number(row.plant_id));
      const endpointIds = claimed.rows.map((row) => Number(row.endpoint_id));
      const bodies = new Map(
        (
          await pool.query<{ id: string; body: string }>(
            "SELECT id, body FROM plants WHERE id = ANY($1::bigint[])",
            [plantIds],
          )
        ).rows.map((row) => [Number(row.id), row.body]),
      );
      const endpoints = new Map(
        (
          await pool.query<EndpointRow>("SELECT * FROM endpoints WHERE id = ANY($1::bigint[])", [endpointIds])
        ).rows.map((row) => [Number(row.id), toEndpoint(row)]),
      );
      const result: ClaimedDelivery[] = [];
      for (const row of claimed.rows) {
        const endpoint = endpoints.get(Number(row.endpoint_id));
        const body = bodies.get(Number(row.plant_id));
        // Removed between the claim and this read: nothing to send to.
        if (!endpoint || body === undefined) continue;
        result.push({ ...toDelivery(row), body, endpoint, leaseUntil: new Date(Number(row.lease_until)) });
      }
      return result.sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || a.id - b.id);
    },
    async recordAttempt(input) {
      return tx(async (client): Promise<RecordedAttempt> => {
        const row = (
          await client.query<DeliveryRow>("SELECT * FROM deliveries WHERE id = $1 FOR UPDATE", [
            input.deliveryId,
          ])
        ).rows[0];
        if (!row) return { held: false, outcome: input.outcome };
        const held =
          row.lease_owner === input.workerId &&
          row.status === "pending" &&
          (input.leaseUntil === undefined || Number(row.lease_until) === input.leaseUntil.getTime());
        const { attempt } = input;
        const endpointId = Number(row.endpoint_id);
        let outcome = input.outcome;
        let disabledEndpoint: string | undefined;
        // Only the lease holder speaks for the endpoint: a late result may predate what is stored.
        if (held && input.endpointSucceeded) {
          // Guarded: every worker's attempt touches one endpoint row, and an unconditional update
          // would serialise them all on its row lock for nothing.
          await client.query(
            "UPDATE endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL",
            [endpointId],
          );
        } else if (held) {
          // The row as it stands under its lock decides: a success recorded by another worker since
          // this delivery was claimed has cleared failing_since, and a failure after a longer gap than
          // failureGapMs (no work for the endpoint) starts a new failing period.
          const period = input.disableAfterMs;
          const failing = (
            await client.query<{ failing_since: string; last_failure_at: string; status: string }>(
              `UPDATE endpoints SET
                 failing_since = CASE WHEN failing_since IS NULL OR last_failure_at IS NULL
                   OR last_failure_at < ${NOW_MS} - $2 THEN ${NOW_MS} ELSE failing_since END,
                 last_failure_at = ${NOW_MS}
               WHERE id = $1 RETURNING failing_since, last_failure_at, status`,
              [endpointId, input.failureGapMs ?? period ?? Number.MAX_SAFE_INTEGER],
            )
          ).rows[0];
          if (failing?.status === "active") {
            const failingFor = Number(failing.last_failure_at) - Number(failing.failing_since);
            disabledEndpoint =
              input.disableEndpoint ??
              (period !== undefined && failingFor >= period ? failingReason(failingFor) : undefined);
            if (disabledEndpoint !== undefined) {
              await client.query(
                "UPDATE endpoints SET status = 'disabled', disabled_reason = $1 WHERE id = $2",
                [disabledEndpoint, endpointId],
              );
              outcome = "disabled";
            }
          }
        }
        await client.query(
          `INSERT INTO attempts (delivery_id, attempt, worker_id, started_at, duration_ms, status, error, response_body, outcome)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [
            input.deliveryId,
            Number(row.attempt_count) + 1,
            input.workerId,
            attempt.startedAt.getTime(),
            attempt.durationMs,
            attempt.status,
            attempt.error,
            attempt.responseBody,
            outcome,
          ],
        );
        if (held) {
          // The next attempt's time travels as a delay and lands on the database's clock.
          const delayMs =
            input.nextAttemptAt === undefined
              ? null
              : Math.max(0, input.nextAttemptAt.getTime() - Date.now());
          await client.query(
            `UPDATE deliveries SET status = $1, attempt_count = attempt_count + 1, round_attempts = round_attempts + 1,
               next_attempt_at = COALESCE(${NOW_MS} + $2::bigint, next_attempt_at), last_status = $3, last_error = $4,
               lease_owner = NULL, lease_until = NULL, updated_at = ${NOW_MS}
             WHERE id = $5`,
            [STATUS_AFTER[outcome], delayMs, attempt.status, attempt.error, input.deliveryId],
          );
        } else {
          // A late attempt keeps its own number, so the lease holder's next attempt never repeats it.
          await client.query("UPDATE deliveries SET attempt_count = attempt_count + 1 WHERE id = $1", [
            input.deliveryId,
          ]);
        }
        return disabledEndpoint === undefined ? { held, outcome } : { held, outcome, disabledEndpoint };
      });
    },
    async release(deliveryId, workerId) {
      await pool.query(
        "UPDATE deliveries SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2",
        [deliveryId, workerId],
      );
      await pool.query(notifySql);
    },
    async getDelivery(id) {
      const row = await one<DeliveryRow>("SELECT * FROM deliveries WHERE id = $1", [id]);
      return row ? toDelivery(row) : undefined;
    },
    async listDeliveries(listOptions = {}) {
      const rows = await pool.query<DeliveryRow>(
        `SELECT * FROM deliveries WHERE ($1::text IS NULL OR status = $1) AND ($2::bigint IS NULL OR endpoint_id = $2)
         ORDER BY id DESC LIMIT $3`,
        [listOptions.status ?? null, listOptions.endpointId ?? null, listOptions.limit ?? 100],
      );
      return rows.rows.map(toDelivery);
    },
    async listAttempts(deliveryId) {
      return (
        await pool.query<AttemptRow>("SELECT * FROM attempts WHERE delivery_id = $1 ORDER BY id", [
          deliveryId,
        ])
      ).rows.map(toAttempt);
    },
    async retryDelivery(id) {
      const row = await one<DeliveryRow>(
        `UPDATE deliveries SET status = 'pending', round_attempts = 0, next_attempt_at = ${NOW_MS},
           updated_at = ${NOW_MS}
         WHERE id = $1 RETURNING *`,
        [id],
      );
      if (row) await pool.query(notifySql);
      return row ? toDelivery(row) : undefined;
    },
    async replay(endpointId, since) {
      return tx(async (client) => {
        const endpoint = await client.query("SELECT id FROM endpoints WHERE id = $1", [endpointId]);
        if (endpoint.rowCount === 0) throw new EndpointNotFoundError(`No endpoint ${endpointId}`);
        const result = await client.query(
          `INSERT INTO deliveries (plant_id, endpoint_id, webhook_id, status, next_attempt_at, created_at, updated_at)
           SELECT id, $1, webhook_id, 'pending', ${NOW_MS}, ${NOW_MS}, ${NOW_MS} FROM plants WHERE created_at >= $2
           ON CONFLICT (webhook_id, endpoint_id) DO UPDATE SET
             status = 'pending', round_attempts = 0, next_attempt_at = ${NOW_MS}, updated_at = ${NOW_MS}`,
          [endpointId, since.getTime()],
        );
        await client.query(notifySql);
        return result.rowCount ?? 0;
      });
    },
    onWork(callback) {
      events.on("work", callback);
      if (!listening) {
        listening = true;
        listen().catch((error: Error) => options.onError?.(error));
      }
      return () => events.off("work", callback);
    },
    async close() {
      closed = true;
      events.removeAllListeners();
      if (listener) {
        await listener.query(`UNLISTEN ${OUTBOX_NOTIFY_CHANNEL}`).catch(() => undefined);
        listener.release();
        listener = undefined;
      }
      if (owned) await pool.end();
    },
  };
}
