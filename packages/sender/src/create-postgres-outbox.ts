import { EventEmitter } from "node:events";
import pg from "pg";
import { createSecretCodec } from "./create-secret-codec.js";
import { decideAttempts } from "./decide-attempts.js";
import {
  type ClaimedDelivery,
  type ClaimRequest,
  type Endpoint,
  type EnqueueResult,
  type MessageInput,
  OUTBOX_NOTIFY_CHANNEL,
  type Outbox,
  type RecordAttemptInput,
  type RecordedAttempt,
} from "./outbox.js";
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
import { POSTGRES_LEGACY_MIGRATION, POSTGRES_SCHEMA, POSTGRES_SCHEMA_OBJECTS } from "./postgres-schema.js";
import { prepareMessage } from "./prepare-message.js";
import type { SecretsCipher } from "./secrets-cipher.js";
import { StaleReadError } from "./stale-read-error.js";
import { traceEnqueue } from "./trace-enqueue.js";
import { traceEnqueueMany } from "./trace-enqueue-many.js";
import { WebhookIdTakenError } from "./webhook-id-taken-error.js";
import { withTransaction } from "./with-transaction.js";

// Serialises schema creation when several store processes start at once.
const MIGRATION_LOCK = 0x706c616e;

const DEADLOCK_DETECTED = "40P01";
const UNIQUE_VIOLATION = "23505";

/**
 * The database's clock in Unix ms, fixed for one statement. Every time the store compares or stores
 * (leases, due times, failing periods) comes from it, so workers on machines whose clocks disagree still
 * agree on when a lease ends: with each process's own clock, a machine running ahead would take over
 * leases early and attempt a delivery another worker is still sending.
 */
const NOW_MS = "(extract(epoch FROM statement_timestamp()) * 1000)::bigint";

/** The message and endpoint columns a claim returns beside each delivery row. */
interface ClaimedColumns {
  m_payload: string;
  m_traceparent: string | null;
  e_url: string;
  e_token: string;
  e_secrets: string;
  e_status: string;
  e_disabled_reason: string | null;
  e_failing_since: string | null;
  e_last_failure_at: string | null;
  e_created_at: string;
}

/** The claim's last part: lease the locked rows and return them with their payload and endpoint. */
const CLAIM_UPDATE = `UPDATE webhook_deliveries d SET lease_owner = lease.owner, lease_until = lease.until
  FROM locked, lease, webhook_messages m, webhook_endpoints e
  WHERE d.id = locked.id AND m.id = d.message_id AND e.id = d.endpoint_id
  RETURNING d.*, m.payload AS m_payload, m.traceparent AS m_traceparent, e.url AS e_url, e.token AS e_token, e.secrets AS e_secrets,
    e.status AS e_status, e.disabled_reason AS e_disabled_reason, e.failing_since AS e_failing_since,
    e.last_failure_at AS e_last_failure_at, e.created_at AS e_created_at`;

const ATTEMPT_TYPES = [
  "bigint[]",
  "int[]",
  "text[]",
  "bigint[]",
  "int[]",
  "int[]",
  "text[]",
  "text[]",
  "text[]",
];
const DELIVERY_WRITE_TYPES = [
  "bigint[]",
  "int[]",
  "int[]",
  "boolean[]",
  "text[]",
  "bigint[]",
  "int[]",
  "text[]",
  "bigint[]",
  // What the record read, which the write requires to be still so.
  "text[]",
  "text[]",
  "bigint[]",
  "int[]",
  "bigint[]",
];

const ENDPOINT_WRITE_TYPES = ["bigint[]", "text[]", "text[]", "bigint[]", "bigint[]"];

/** Numbered parameters for a statement put together from parts. */
interface Params {
  readonly values: unknown[];
  /** Adds a value and answers its placeholder, cast to `type`. */
  param(value: unknown, type: string): string;
}

function createParams(): Params {
  const values: unknown[] = [];
  return {
    values,
    param(value, type) {
      values.push(value);
      return `$${values.length}::${type}`;
    },
  };
}

/** Rows to the column arrays `unnest` takes: one array per column. */
function columns(rows: ReadonlyArray<ReadonlyArray<unknown>>, width: number): unknown[][] {
  return Array.from({ length: width }, (_, column) => rows.map((row) => row[column]));
}

type Transaction = <T>(work: (client: pg.PoolClient) => Promise<T>) => Promise<T>;

/**
 * Creates what is missing of the schema, and moves a 0.1 outbox's tables over. `CREATE INDEX IF NOT
 * EXISTS` takes a SHARE lock on its table even when the index exists, which deadlocks against a running
 * process's attempt (it holds ROW EXCLUSIVE on attempts and then upgrades on deliveries). So a schema
 * that is complete is only looked at, without locks; DDL runs under the advisory lock and is retried on
 * a deadlock.
 */
async function createSchema(tx: Transaction): Promise<void> {
  const complete = async (client: pg.PoolClient) => {
    const found = await client.query<{ missing: number; legacy: boolean; traced: boolean }>(
      `SELECT (SELECT count(*)::int FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NULL) AS missing,
              EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('deliveries')
                AND attname = 'plant_id' AND NOT attisdropped) AS legacy,
              EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('webhook_messages')
                AND attname = 'traceparent' AND NOT attisdropped) AS traced`,
      [POSTGRES_SCHEMA_OBJECTS],
    );
    const row = found.rows[0];
    return row?.missing === 0 && row.legacy === false && row.traced;
  };
  for (let attempt = 1; ; attempt++) {
    try {
      await tx(async (client) => {
        if (await complete(client)) return;
        await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
        if (await complete(client)) return;
        await client.query(POSTGRES_SCHEMA);
        const legacy = await client.query(
          `SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('deliveries') AND attname = 'plant_id'
             AND NOT attisdropped`,
        );
        if ((legacy.rowCount ?? 0) > 0) await client.query(POSTGRES_LEGACY_MIGRATION);
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
  /**
   * Encrypts endpoint tokens and signing secrets at rest (e.g. `createAesGcmCipher`). Values stored in
   * plain text before still read; `reencryptEndpoints` converts them.
   */
  secretsCipher?: SecretsCipher;
}

export interface PostgresEnqueueOptions {
  /**
   * A client on which the caller ran `BEGIN`: the message is queued in the caller's transaction,
   * delivered once after `COMMIT` and never if it rolls back. Without it, the outbox commits on its own.
   */
  client?: pg.ClientBase;
}

/** The queue as seen through PostgreSQL: `enqueue` can join the caller's transaction. */
export interface PostgresOutbox extends Outbox {
  enqueue(message: MessageInput, options?: PostgresEnqueueOptions): Promise<EnqueueResult>;
  /**
   * `enqueue` for several messages in one statement (one round trip whatever their number), one result
   * per message in order; all or none. Every message is checked before anything is written.
   */
  enqueueMany(messages: readonly MessageInput[], options?: PostgresEnqueueOptions): Promise<EnqueueResult[]>;
  /**
   * Rewrites every endpoint's token and secrets under the cipher's current key (plain ones included), in
   * one transaction that locks the rows; answers how many endpoints changed.
   */
  reencryptEndpoints(): Promise<number>;
}

/**
 * The shared outbox in PostgreSQL. Claims lock candidate rows with `FOR UPDATE SKIP LOCKED` and
 * re-check the lease on the locked row, so processes on several machines split the due work and
 * no delivery is held by two workers at once; `NOTIFY` (delivered on commit) wakes every process
 * when work is added.
 */
export async function createPostgresOutbox(
  poolOrUrl: pg.Pool | string,
  options: PostgresOutboxOptions = {},
): Promise<PostgresOutbox> {
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

  const tx = <T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> => withTransaction(pool, work);

  await createSchema(tx);
  const codec = createSecretCodec(options.secretsCipher);
  const toEndpoint = (row: EndpointRow) => endpointFromRow(row, codec.open);

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

  // One statement: the message, one delivery per active endpoint, and a NOTIFY that PostgreSQL holds
  // until the transaction commits (the caller's, when it passed its client), so no worker looks early.
  const enqueueSql = `WITH m AS (
      INSERT INTO webhook_messages (webhook_id, idempotency_key, payload, created_at, traceparent)
      VALUES ($1, $2, $3, ${NOW_MS}, $4) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id, created_at
    ), d AS (
      INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, status, next_attempt_at, created_at, updated_at)
      SELECT m.id, e.id, $1, 'pending', m.created_at, m.created_at, m.created_at
      FROM m CROSS JOIN webhook_endpoints e WHERE e.status = 'active' RETURNING 1
    ), n AS (
      SELECT pg_notify('${OUTBOX_NOTIFY_CHANNEL}', '') FROM (SELECT 1 FROM d LIMIT 1) AS any_delivery
    )
    SELECT (SELECT id FROM m) AS id, (SELECT count(*) FROM d)::int AS deliveries, (SELECT count(*) FROM n) AS notified`;

  // `enqueueSql` for many messages: the input keeps its order (ordinality), each message gets one
  // delivery per active endpoint, and one NOTIFY covers them all.
  const enqueueManySql = `WITH input AS (
      SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS i(webhook_id, idempotency_key, payload, traceparent, n)
    ), m AS (
      INSERT INTO webhook_messages (webhook_id, idempotency_key, payload, created_at, traceparent)
      SELECT webhook_id, idempotency_key, payload, ${NOW_MS}, traceparent FROM input ORDER BY n
      ON CONFLICT (idempotency_key) DO NOTHING RETURNING id, webhook_id, created_at
    ), d AS (
      INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, status, next_attempt_at, created_at, updated_at)
      SELECT m.id, e.id, m.webhook_id, 'pending', m.created_at, m.created_at, m.created_at
      FROM m CROSS JOIN webhook_endpoints e WHERE e.status = 'active' ORDER BY m.id, e.id RETURNING message_id
    ), n AS (
      SELECT pg_notify('${OUTBOX_NOTIFY_CHANNEL}', '') FROM (SELECT 1 FROM d LIMIT 1) AS any_delivery
    )
    SELECT m.id, m.webhook_id, COALESCE(per.deliveries, 0)::int AS deliveries, (SELECT count(*) FROM n) AS notified
    FROM m LEFT JOIN (SELECT message_id, count(*) AS deliveries FROM d GROUP BY message_id) per ON per.message_id = m.id`;

  /** A unique violation on the message's webhook id is the caller's: another message took that id. */
  function webhookIdTaken(error: unknown, webhookIds: readonly string[]): unknown {
    const { code, constraint } = error as { code?: unknown; constraint?: unknown };
    if (code === UNIQUE_VIOLATION && constraint === "webhook_messages_webhook_id_key")
      return new WebhookIdTakenError(
        webhookIds.length === 1
          ? `webhook id ${webhookIds[0]} is already taken by another message`
          : "a webhook id is already taken by another message",
        { cause: error },
      );
    return error;
  }

  /**
   * `recordBatch` read without locks first: a row lock costs a WAL record per delivery, and a batch's
   * deliveries are normally held by this worker alone (its lease). Its writes are guarded by what it
   * read, so a row changed in between (a lease taken over, a retry by an operator) rolls the whole
   * transaction back, and the batch is recorded again under locks.
   */
  async function recordInTransaction(
    inputs: readonly RecordAttemptInput[],
    claim?: ClaimRequest,
  ): Promise<{ recorded: RecordedAttempt[]; claimed: ClaimedDelivery[] }> {
    try {
      return await tx((client) => recordBatch(client, inputs, claim, false));
    } catch (error) {
      if (!(error instanceof StaleReadError)) throw error;
      return tx((client) => recordBatch(client, inputs, claim, true));
    }
  }

  /**
   * Records a batch of attempts in one transaction with a fixed number of statements, whatever its size:
   * the delivery rows are read (under their locks when `locked`, in id order, so two workers' batches
   * cannot deadlock on each other), the endpoints of failed attempts under their locks, `decideAttempts`
   * decides, and one statement writes each row once, only if it still is as read, and, given a claim,
   * claims the work that replaces them: two round trips and one commit for a batch and its replacements.
   */
  async function recordBatch(
    client: pg.PoolClient,
    inputs: readonly RecordAttemptInput[],
    claim: ClaimRequest | undefined,
    locked: boolean,
  ): Promise<{ recorded: RecordedAttempt[]; claimed: ClaimedDelivery[] }> {
    // Read before the statement starts, so a retry's delay is counted from no earlier than the worker's
    // own now: the retry lands on the database clock, never before the worker decided it should.
    const callerNow = Date.now();
    const ids = [...new Set(inputs.map((input) => input.deliveryId))].sort((a, b) => a - b);
    const rows = (
      await client.query<DeliveryRow & { now_ms: string }>(
        `SELECT *, ${NOW_MS} AS now_ms FROM webhook_deliveries WHERE id = ANY($1::bigint[]) ORDER BY id${locked ? " FOR UPDATE" : ""}`,
        [ids],
      )
    ).rows;
    const storeNow = Number(rows[0]?.now_ms ?? callerNow);
    const deliveries = new Map(
      rows.map((row) => [Number(row.id), { ...toDeliveryState(row), endpointId: Number(row.endpoint_id) }]),
    );
    // A failure reads its endpoint under the lock: a success recorded by another worker since the
    // delivery was claimed has cleared failing_since. Successes alone only need a guarded write.
    const failing = [
      ...new Set(
        inputs
          .filter((input) => !input.endpointSucceeded)
          .map((input) => deliveries.get(input.deliveryId)?.endpointId)
          .filter((id): id is number => id !== undefined),
      ),
    ].sort((a, b) => a - b);
    const endpoints = new Map(
      failing.length === 0
        ? []
        : (
            await client.query<EndpointRow>(
              "SELECT * FROM webhook_endpoints WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE",
              [failing],
            )
          ).rows.map((row) => [
            Number(row.id),
            { ...toEndpointState(row), disabledReason: row.disabled_reason },
          ]),
    );
    const batch = decideAttempts(inputs, deliveries, endpoints, { storeNow, callerNow });
    // Every write of the batch, and the claim when one rides along, in one statement: one round trip.
    const sql = createParams();
    const ctes: string[] = [];
    const attempts = inputs.flatMap((input, index) => {
      const decision = batch.decisions[index];
      return decision ? [attemptValues(input, decision)] : [];
    });
    if (attempts.length > 0) {
      const [a, b, c, d, e, f, g, h, i] = columns(attempts, 9).map((values, index) =>
        sql.param(values, ATTEMPT_TYPES[index] as string),
      );
      ctes.push(`attempts AS (
        INSERT INTO webhook_attempts (delivery_id, attempt, worker_id, started_at, duration_ms, status, error, response_body, outcome)
        SELECT * FROM unnest(${a}, ${b}, ${c}, ${d}, ${e}, ${f}, ${g}, ${h}, ${i}) RETURNING 1)`);
    }
    const writes = [...batch.deliveries];
    if (writes.length > 0) {
      const [a, b, c, d, e, f, g, h, i, j, k, l, m, n] = columns(
        writes.map(([id, write]) => {
          const read = deliveries.get(id);
          return [
            id,
            write.attempts,
            write.rounds,
            write.finished !== undefined,
            write.finished?.status ?? null,
            write.finished?.nextAttemptAt ?? null,
            write.finished?.lastStatus ?? null,
            write.finished?.lastError ?? null,
            write.finished?.updatedAt ?? null,
            read?.status,
            read?.leaseOwner ?? null,
            read?.leaseUntil ?? null,
            read?.attemptCount,
            read?.nextAttemptAt,
          ];
        }),
        14,
      ).map((values, index) => sql.param(values, DELIVERY_WRITE_TYPES[index] as string));
      ctes.push(`deliveries AS (
        UPDATE webhook_deliveries d SET
          attempt_count = d.attempt_count + u.attempts, round_attempts = d.round_attempts + u.rounds,
          status = COALESCE(u.status, d.status), next_attempt_at = COALESCE(u.next_attempt_at, d.next_attempt_at),
          last_status = CASE WHEN u.finished THEN u.last_status ELSE d.last_status END,
          last_error = CASE WHEN u.finished THEN u.last_error ELSE d.last_error END,
          lease_owner = CASE WHEN u.finished THEN NULL ELSE d.lease_owner END,
          lease_until = CASE WHEN u.finished THEN NULL ELSE d.lease_until END,
          updated_at = COALESCE(u.updated_at, d.updated_at)
        FROM unnest(${a}, ${b}, ${c}, ${d}, ${e}, ${f}, ${g}, ${h}, ${i}, ${j}, ${k}, ${l}, ${m}, ${n})
          AS u(id, attempts, rounds, finished, status, next_attempt_at, last_status, last_error, updated_at,
               read_status, read_owner, read_until, read_count, read_next)
        WHERE d.id = u.id AND d.status = u.read_status AND d.lease_owner IS NOT DISTINCT FROM u.read_owner
          AND d.lease_until IS NOT DISTINCT FROM u.read_until AND d.attempt_count = u.read_count
          AND d.next_attempt_at = u.read_next
        RETURNING 1)`);
    }
    const cleared = [...batch.endpoints].filter(([, write]) => write.kind === "clear").map(([id]) => id);
    if (cleared.length > 0)
      // Guarded: every worker's attempt touches one endpoint row, and an unconditional update would
      // serialise them all on its row lock for nothing.
      ctes.push(`cleared AS (
        UPDATE webhook_endpoints SET failing_since = NULL WHERE id IN (
          SELECT id FROM webhook_endpoints WHERE id = ANY(${sql.param(
            cleared.sort((a, b) => a - b),
            "bigint[]",
          )})
            AND failing_since IS NOT NULL ORDER BY id FOR UPDATE) RETURNING 1)`);
    const set = [...batch.endpoints].flatMap(([id, write]) =>
      write.kind === "set"
        ? [[id, write.status, write.disabledReason, write.failingSince, write.lastFailureAt]]
        : [],
    );
    if (set.length > 0) {
      const [a, b, c, d, e] = columns(set, 5).map((values, index) =>
        sql.param(values, ENDPOINT_WRITE_TYPES[index] as string),
      );
      ctes.push(`endpoints_set AS (
        UPDATE webhook_endpoints e SET status = u.status, disabled_reason = u.disabled_reason,
          failing_since = u.failing_since, last_failure_at = u.last_failure_at
        FROM unnest(${a}, ${b}, ${c}, ${d}, ${e}) AS u(id, status, disabled_reason, failing_since, last_failure_at)
        WHERE e.id = u.id RETURNING 1)`);
    }
    let claimed: ClaimedDelivery[] = [];
    if (claim !== undefined && claim.limit > 0) {
      // The claim reads the rows as they stood when the statement began: the deliveries recorded here
      // (still leased to this worker then) and the endpoints this batch disables are kept out of it
      // explicitly, so no row is written twice in one statement and no work goes to a disabled endpoint.
      const disabled = set.filter((row) => row[1] === "disabled").map((row) => row[0] as number);
      // The claim's parts first: a statement is told apart by its start (pg_stat_activity keeps 1 kB).
      ctes.unshift(...claimCtes(sql, claim, ids, disabled));
      ctes.push(`claimed AS (${CLAIM_UPDATE})`);
    }
    if (ctes.length > 0) {
      const written = writes.length > 0 ? "(SELECT count(*) FROM deliveries)::int" : "0";
      const { rows } = await client.query<{ written: number } & Partial<DeliveryRow & ClaimedColumns>>(
        claim === undefined || claim.limit <= 0
          ? `WITH ${ctes.join(",\n")}\nSELECT ${written} AS written`
          : `WITH ${ctes.join(",\n")}\nSELECT ${written} AS written, claimed.* FROM (SELECT 1) AS one LEFT JOIN claimed ON true`,
        sql.values,
      );
      if ((rows[0]?.written ?? 0) !== writes.length)
        throw new StaleReadError("a delivery changed between the record's read and its write");
      claimed = toClaimed(
        rows.filter((row) => row.id !== null && row.id !== undefined) as Array<DeliveryRow & ClaimedColumns>,
      );
    }
    const recorded = batch.decisions.map((decision, index) =>
      decision
        ? toRecordedAttempt(decision)
        : { held: false, outcome: (inputs[index] as RecordAttemptInput).outcome },
    );
    return { recorded, claimed };
  }

  /** The claim's CTEs (`candidates`, `locked`), read by `CLAIM_UPDATE`. */
  function claimCtes(sql: Params, claim: ClaimRequest, skipDeliveries: number[], skipEndpoints: number[]) {
    const perEndpoint = claim.options?.perEndpointLimit ?? claim.limit;
    const excluded = [...(claim.options?.excludeEndpointIds ?? []), ...skipEndpoints];
    const skip = sql.param(skipDeliveries, "bigint[]");
    // Candidates are picked without locks by walking the pending rows' (endpoint_id, next_attempt_at)
    // index per active endpoint, so the cost follows what is claimed, not the backlog; the locking
    // SELECT re-checks each row as it stands after any concurrent claim committed.
    return [
      `candidates AS (
        SELECT due.id FROM webhook_endpoints e CROSS JOIN LATERAL (
          SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
          WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= ${NOW_MS}
            AND (d.lease_until IS NULL OR d.lease_until <= ${NOW_MS}) AND NOT (d.id = ANY(${skip}))
          ORDER BY d.next_attempt_at, d.id LIMIT ${sql.param(perEndpoint, "int")}
        ) due
        WHERE e.status = 'active' AND NOT (e.id = ANY(${sql.param(excluded, "bigint[]")}))
        ORDER BY due.next_attempt_at, due.id LIMIT ${sql.param(claim.limit, "int")})`,
      `locked AS (
        SELECT d.id FROM webhook_deliveries d
        WHERE d.id IN (SELECT id FROM candidates) AND d.status = 'pending'
          AND (d.lease_until IS NULL OR d.lease_until <= ${NOW_MS})
        FOR UPDATE SKIP LOCKED)`,
      `lease AS (SELECT ${sql.param(claim.workerId, "text")} AS owner, ${NOW_MS} + ${sql.param(claim.leaseMs, "bigint")} AS until)`,
    ];
  }

  async function claimDue(claim: ClaimRequest): Promise<ClaimedDelivery[]> {
    if (claim.limit <= 0) return [];
    const sql = createParams();
    const ctes = claimCtes(sql, claim, [], []);
    // One statement: the lease, and what each attempt needs (the payload, the endpoint) joined in.
    const claimed = await pool.query<DeliveryRow & ClaimedColumns>(
      `WITH ${ctes.join(",\n")}\n${CLAIM_UPDATE}`,
      sql.values,
    );
    return toClaimed(claimed.rows);
  }

  function toClaimed(rows: ReadonlyArray<DeliveryRow & ClaimedColumns>): ClaimedDelivery[] {
    // One parse of an endpoint's secrets per claim, not one per delivery.
    const endpoints = new Map<number, Endpoint>();
    const result: ClaimedDelivery[] = rows.map((row) => {
      const endpointId = Number(row.endpoint_id);
      let endpoint = endpoints.get(endpointId);
      if (!endpoint) {
        endpoint = toEndpoint({
          id: endpointId,
          url: row.e_url,
          token: row.e_token,
          secrets: row.e_secrets,
          status: row.e_status,
          disabled_reason: row.e_disabled_reason,
          failing_since: row.e_failing_since,
          last_failure_at: row.e_last_failure_at,
          created_at: row.e_created_at,
        });
        endpoints.set(endpointId, endpoint);
      }
      return {
        ...toDelivery(row),
        body: row.m_payload,
        endpoint,
        leaseUntil: new Date(Number(row.lease_until)),
        ...(row.m_traceparent === null ? {} : { traceparent: row.m_traceparent }),
      };
    });
    return result.sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || a.id - b.id);
  }

  return {
    async enqueue(message, enqueueOptions = {}) {
      const prepared = prepareMessage(message);
      return traceEnqueue(prepared.webhookId, async (traceparent) => {
        // The caller's client (its open transaction), or the pool: one statement commits on its own.
        const client: Pick<pg.ClientBase, "query"> = enqueueOptions.client ?? pool;
        let result: pg.QueryResult<{ id: string | null; deliveries: number }>;
        try {
          result = await client.query(enqueueSql, [
            prepared.webhookId,
            prepared.idempotencyKey,
            prepared.payload,
            traceparent,
          ]);
        } catch (error) {
          throw webhookIdTaken(error, [prepared.webhookId]);
        }
        const row = result.rows[0];
        if (row?.id !== null && row?.id !== undefined)
          return {
            messageId: Number(row.id),
            webhookId: prepared.webhookId,
            duplicate: false,
            deliveries: row.deliveries,
          };
        // The key's first message, committed before this statement looked (ON CONFLICT waited for it).
        const first = (
          await client.query<MessageRow>("SELECT * FROM webhook_messages WHERE idempotency_key = $1", [
            prepared.idempotencyKey,
          ])
        ).rows[0] as MessageRow;
        return { messageId: Number(first.id), webhookId: first.webhook_id, duplicate: true, deliveries: 0 };
      });
    },
    async enqueueMany(messages, enqueueOptions = {}) {
      if (messages.length === 0) return [];
      const prepared = messages.map(prepareMessage);
      const client: Pick<pg.ClientBase, "query"> = enqueueOptions.client ?? pool;
      const webhookIds = prepared.map((message) => message.webhookId);
      return traceEnqueueMany(webhookIds, async (traceparents) => {
        let result: pg.QueryResult<{ id: string; webhook_id: string; deliveries: number }>;
        try {
          result = await client.query(enqueueManySql, [
            webhookIds,
            prepared.map((message) => message.idempotencyKey),
            prepared.map((message) => message.payload),
            traceparents,
          ]);
        } catch (error) {
          throw webhookIdTaken(error, webhookIds);
        }
        const added = new Map(result.rows.map((row) => [row.webhook_id, row]));
        // Keys known before (or twice in this call): the key's first message, as `enqueue` answers.
        const known = prepared.filter((message) => !added.has(message.webhookId));
        const firsts =
          known.length === 0
            ? new Map<string, MessageRow>()
            : new Map(
                (
                  await client.query<MessageRow>(
                    "SELECT * FROM webhook_messages WHERE idempotency_key = ANY($1::text[])",
                    [known.map((message) => message.idempotencyKey)],
                  )
                ).rows.map((row) => [row.idempotency_key as string, row]),
              );
        return prepared.map((message) => {
          const row = added.get(message.webhookId);
          if (row)
            return {
              messageId: Number(row.id),
              webhookId: row.webhook_id,
              duplicate: false,
              deliveries: row.deliveries,
            };
          const first = firsts.get(message.idempotencyKey as string) as MessageRow;
          return { messageId: Number(first.id), webhookId: first.webhook_id, duplicate: true, deliveries: 0 };
        });
      });
    },
    async getMessage(id) {
      const row = await one<MessageRow>("SELECT * FROM webhook_messages WHERE id = $1", [id]);
      return row ? toMessage(row) : undefined;
    },
    async addEndpoint(input) {
      const row = await one<EndpointRow>(
        `INSERT INTO webhook_endpoints (url, token, secrets, created_at) VALUES ($1, $2, $3, ${NOW_MS}) RETURNING *`,
        [input.url, codec.seal(input.token), codec.seal(JSON.stringify(input.secrets))],
      );
      return toEndpoint(row as EndpointRow);
    },
    async getEndpoint(id) {
      const row = await one<EndpointRow>("SELECT * FROM webhook_endpoints WHERE id = $1", [id]);
      return row ? toEndpoint(row) : undefined;
    },
    async listEndpoints() {
      return (await pool.query<EndpointRow>("SELECT * FROM webhook_endpoints ORDER BY id")).rows.map((row) =>
        toEndpoint(row),
      );
    },
    async setEndpointStatus(id, status, reason) {
      const row = await one<EndpointRow>(
        `UPDATE webhook_endpoints SET status = $1, disabled_reason = $2,
           failing_since = CASE WHEN $1 = 'active' THEN NULL ELSE failing_since END
         WHERE id = $3 RETURNING *`,
        [status, status === "disabled" ? (reason ?? "disabled by an operator") : null, id],
      );
      if (row && status === "active") await pool.query(notifySql);
      return row ? toEndpoint(row) : undefined;
    },
    async setEndpointSecrets(id, secrets) {
      const row = await one<EndpointRow>(
        "UPDATE webhook_endpoints SET secrets = $1 WHERE id = $2 RETURNING *",
        [codec.seal(JSON.stringify(secrets)), id],
      );
      return row ? toEndpoint(row) : undefined;
    },
    async setEndpointToken(id, token) {
      const row = await one<EndpointRow>(
        "UPDATE webhook_endpoints SET token = $1 WHERE id = $2 RETURNING *",
        [codec.seal(token), id],
      );
      return row ? toEndpoint(row) : undefined;
    },
    async reencryptEndpoints() {
      return tx(async (client) => {
        const { rows } = await client.query<Pick<EndpointRow, "id" | "token" | "secrets">>(
          "SELECT id, token, secrets FROM webhook_endpoints ORDER BY id FOR UPDATE",
        );
        let changed = 0;
        for (const row of rows) {
          if (codec.isCurrent(row.token) && codec.isCurrent(row.secrets)) continue;
          await client.query("UPDATE webhook_endpoints SET token = $1, secrets = $2 WHERE id = $3", [
            codec.seal(codec.open(row.token)),
            codec.seal(codec.open(row.secrets)),
            row.id,
          ]);
          changed += 1;
        }
        return changed;
      });
    },
    async removeEndpoint(id) {
      // Its deliveries go by cascade; their attempts, which have no foreign key, in the same statement.
      const { rows } = await pool.query<{ removed: number }>(
        `WITH attempts AS (
           DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE endpoint_id = $1)
         ), endpoint AS (DELETE FROM webhook_endpoints WHERE id = $1 RETURNING 1)
         SELECT count(*)::int AS removed FROM endpoint`,
        [id],
      );
      return (rows[0]?.removed ?? 0) > 0;
    },
    async claimDue(workerId, limit, leaseMs, claimOptions = {}) {
      return claimDue({ workerId, limit, leaseMs, options: claimOptions });
    },
    async recordAttempt(input) {
      const { recorded } = await recordInTransaction([input]);
      return recorded[0] as RecordedAttempt;
    },
    async recordAttempts(inputs) {
      if (inputs.length === 0) return [];
      return (await recordInTransaction(inputs)).recorded;
    },
    async recordAttemptsAndClaim(inputs, claim) {
      if (inputs.length === 0) return { recorded: [], claimed: await claimDue(claim) };
      return recordInTransaction(inputs, claim);
    },
    async release(deliveryId, workerId) {
      await pool.query(
        "UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2",
        [deliveryId, workerId],
      );
      await pool.query(notifySql);
    },
    async getDelivery(id) {
      const row = await one<DeliveryRow>("SELECT * FROM webhook_deliveries WHERE id = $1", [id]);
      return row ? toDelivery(row) : undefined;
    },
    async listDeliveries(listOptions = {}) {
      const rows = await pool.query<DeliveryRow>(
        `SELECT * FROM webhook_deliveries WHERE ($1::text IS NULL OR status = $1)
           AND ($2::bigint IS NULL OR endpoint_id = $2) AND ($3::bigint IS NULL OR message_id = $3)
         ORDER BY id DESC LIMIT $4`,
        [
          listOptions.status ?? null,
          listOptions.endpointId ?? null,
          listOptions.messageId ?? null,
          listOptions.limit ?? 100,
        ],
      );
      return rows.rows.map(toDelivery);
    },
    async listAttempts(deliveryId) {
      return (
        await pool.query<AttemptRow>("SELECT * FROM webhook_attempts WHERE delivery_id = $1 ORDER BY id", [
          deliveryId,
        ])
      ).rows.map(toAttempt);
    },
    async endpointStats(since) {
      return (await pool.query<EndpointStatsRow>(endpointStatsSql("$1"), [since.getTime()])).rows.map(
        toEndpointStats,
      );
    },
    async retryDelivery(id) {
      const row = await one<DeliveryRow>(
        `UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0, next_attempt_at = ${NOW_MS},
           updated_at = ${NOW_MS}
         WHERE id = $1 RETURNING *`,
        [id],
      );
      if (row) await pool.query(notifySql);
      return row ? toDelivery(row) : undefined;
    },
    async replay(endpointId, since) {
      return tx(async (client) => {
        const endpoint = await client.query("SELECT id FROM webhook_endpoints WHERE id = $1", [endpointId]);
        if (endpoint.rowCount === 0) throw new EndpointNotFoundError(`No endpoint ${endpointId}`);
        const result = await client.query(
          `INSERT INTO webhook_deliveries (message_id, endpoint_id, webhook_id, status, next_attempt_at, created_at, updated_at)
           SELECT id, $1, webhook_id, 'pending', ${NOW_MS}, ${NOW_MS}, ${NOW_MS} FROM webhook_messages WHERE created_at >= $2
           ON CONFLICT (message_id, endpoint_id) DO UPDATE SET
             status = 'pending', round_attempts = 0, next_attempt_at = ${NOW_MS}, updated_at = ${NOW_MS}`,
          [endpointId, since.getTime()],
        );
        await client.query(notifySql);
        return result.rowCount ?? 0;
      });
    },
    async sweep(sweepOptions) {
      const batchSize = sweepOptions.batchSize ?? 500;
      return tx(async (client) => {
        // SKIP LOCKED: a row another transaction holds (a retry or replay making it pending) is not ours to judge.
        const ids = (
          await client.query<{ id: string }>(
            `SELECT id FROM webhook_deliveries WHERE status IN ('delivered', 'failed') AND updated_at < ${NOW_MS} - $1
             ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
            [sweepOptions.olderThanMs, batchSize],
          )
        ).rows.map((row) => row.id);
        const attempts = ids.length
          ? ((await client.query("DELETE FROM webhook_attempts WHERE delivery_id = ANY($1::bigint[])", [ids]))
              .rowCount ?? 0)
          : 0;
        const deliveries = ids.length
          ? ((await client.query("DELETE FROM webhook_deliveries WHERE id = ANY($1::bigint[])", [ids]))
              .rowCount ?? 0)
          : 0;
        const messages =
          (
            await client.query(
              `DELETE FROM webhook_messages WHERE id IN (
                 SELECT m.id FROM webhook_messages m WHERE m.created_at < ${NOW_MS} - $1
                   AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = m.id)
                 ORDER BY m.created_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
              [sweepOptions.olderThanMs, batchSize],
            )
          ).rowCount ?? 0;
        return { deliveries, attempts, messages };
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
