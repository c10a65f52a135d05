import type { OperationalEvent } from "@plant-store/types";
import { StaleReadError } from "../../errors.js";
import { isSuccessStatus } from "../../is-success-status.js";
import { newWebhookId } from "../../new-webhook-id.js";
import type { AttemptReport, RecordOptions, RecordResult } from "../../outbox.js";
import { type AlertDelivery, type AlertEndpoint, decideAlerts } from "../decide-alerts.js";
import { type BatchEndpointState, decideAttempts } from "../decide-attempts.js";
import type { ColumnType } from "../dialect.js";
import type { Operation } from "../operation.js";
import { reusePlans, rows } from "../operation.js";
import type { QueueContext } from "../queue-context.js";
import {
  attemptValues,
  type DeliveryRow,
  type EndpointRow,
  toClaimed,
  toDeliveryState,
  toEndpointState,
  toRecordedAttempt,
} from "../rows.js";
import { decideSlowLanes, type SlowLane } from "../slow-lane.js";
import { raw, type Sql, type SqlValue, sql } from "../sql.js";
import { claimPlan } from "./claim-due.js";

type Columns = ReadonlyArray<readonly [string, ColumnType]>;

const ATTEMPT_COLUMNS: Columns = [
  ["delivery_id", "bigint"],
  ["attempt", "int"],
  ["worker_id", "text"],
  ["started_at", "bigint"],
  ["duration_ms", "int"],
  ["status", "int"],
  ["error", "text"],
  ["response_body", "text"],
  ["outcome", "text"],
];

/** What a batch writes to one delivery, beside what the record read (the write requires it to be still so). */
const DELIVERY_WRITE_COLUMNS: Columns = [
  ["id", "bigint"],
  ["attempts", "int"],
  ["rounds", "int"],
  ["finished", "int"],
  ["status", "text"],
  ["next_attempt_at", "bigint"],
  ["last_status", "int"],
  ["last_error", "text"],
  ["updated_at", "bigint"],
  ["read_status", "text"],
  ["read_owner", "text"],
  ["read_until", "bigint"],
  ["read_count", "int"],
  ["read_next", "bigint"],
];

const ENDPOINT_WRITE_COLUMNS: Columns = [
  ["id", "bigint"],
  ["status", "text"],
  ["disabled_reason", "text"],
  ["failing_since", "bigint"],
  ["last_failure_at", "bigint"],
  ["timeouts", "int"],
  ["slow_until", "bigint"],
];

/**
 * What the record reads of each delivery, by name rather than `*`: fewer columns decoded per row, and on
 * PostgreSQL the read is then a named statement, parsed and planned once per connection instead of at
 * every batch (a statement selecting `*` is never named: a column added by a migration would fail it).
 */
const RECORD_READ = [
  "id",
  "message_id",
  "endpoint_id",
  "webhook_id",
  "event_type",
  "status",
  "lease_owner",
  "lease_until",
  "attempt_count",
  "round_attempts",
  "next_attempt_at",
] as const satisfies ReadonlyArray<keyof DeliveryRow>;
const RECORD_READ_COLUMNS = raw(RECORD_READ.join(", "));
type RecordReadRow = Pick<DeliveryRow, (typeof RECORD_READ)[number]> & {
  now_ms: number | string;
  endpoint_failing_since: number | string | null;
};

const names = (columns: Columns) => raw(columns.map(([name]) => name).join(", "));
const ascending = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);

/**
 * Records a batch of attempts in one transaction with a fixed number of statements, whatever its size,
 * and claims the work that replaces them in the same transaction when asked. The delivery rows are read
 * (under their locks when `locked`, in id order, so two workers' batches cannot deadlock), the endpoints of
 * failed attempts under their locks (a success recorded by another worker since the claim counts), then
 * `decideAttempts` decides everything once, on the store's clock, and each row is written once, only if
 * it is still as read: a row changed in between (a lease taken over, an operator's retry) fails the write
 * with `StaleReadError`, and the outbox records the batch again under locks.
 *
 * Unlocked first, because a row lock costs a WAL record per delivery on PostgreSQL, and a batch's
 * deliveries are normally held by this worker alone (its lease). On SQLite the write transaction already
 * holds the file, so the read is never stale.
 */
export function* recordAttempts(
  ctx: QueueContext,
  reports: readonly AttemptReport[],
  options: RecordOptions,
  locked: boolean,
): Operation<RecordResult> {
  const { dialect } = ctx;
  yield* reusePlans();
  const lock = locked ? dialect.forUpdate : raw("");
  const ids = ascending(reports.map((report) => report.deliveryId));
  const read =
    ids.length === 0
      ? []
      : yield* rows<RecordReadRow>(
          // The endpoint's run as last committed, unlocked: a success on a failing endpoint may be its
          // recovery, confirmed under the endpoint's lock (below).
          sql`SELECT ${RECORD_READ_COLUMNS}, ${ctx.now} AS now_ms, (SELECT e.failing_since FROM webhook_endpoints e
                WHERE e.id = webhook_deliveries.endpoint_id) AS endpoint_failing_since FROM webhook_deliveries
              WHERE ${dialect.isIn(raw("id"), ids, "bigint")} ORDER BY id${lock}`,
        );
  const deliveries = new Map(
    read.map((row) => [Number(row.id), { ...toDeliveryState(row), endpointId: Number(row.endpoint_id) }]),
  );
  const failing = ascending(
    reports.flatMap((report) => {
      const endpointId = deliveries.get(report.deliveryId)?.endpointId;
      return endpointId === undefined || isSuccessStatus(report.result.status) ? [] : [endpointId];
    }),
  );
  const endpoints = new Map<number, BatchEndpointState>();
  const alertDeliveries = new Map<number, AlertDelivery>();
  const alertEndpoints = new Map<number, AlertEndpoint>();
  const lanes = new Map<number, SlowLane>();
  for (const row of read)
    alertDeliveries.set(Number(row.id), {
      endpointId: Number(row.endpoint_id),
      messageId: Number(row.message_id),
      webhookId: row.webhook_id,
      eventType: row.event_type ?? null,
    });
  // A success on an endpoint whose run had not ended when last committed may be its recovery: its row is
  // read under its lock with the failures' (one ordered statement, so two batches cannot deadlock), and
  // of two workers' successes only the first to hold it finds the run still going.
  const runGoing = new Set(
    read.flatMap((row) => (row.endpoint_failing_since === null ? [] : [Number(row.id)])),
  );
  const recovering = reports.flatMap((report) => {
    const endpointId = deliveries.get(report.deliveryId)?.endpointId;
    return endpointId !== undefined &&
      runGoing.has(report.deliveryId) &&
      isSuccessStatus(report.result.status)
      ? [endpointId]
      : [];
  });
  const lockedEndpoints = ascending([...failing, ...recovering]);
  if (lockedEndpoints.length > 0)
    for (const row of yield* rows<EndpointRow>(
      sql`SELECT * FROM webhook_endpoints WHERE ${dialect.isIn(raw("id"), lockedEndpoints, "bigint")} ORDER BY id${dialect.forUpdate}`,
    )) {
      endpoints.set(Number(row.id), { ...toEndpointState(row), disabledReason: row.disabled_reason });
      lanes.set(Number(row.id), {
        timeouts: Number(row.timeouts ?? 0),
        slowUntil: row.slow_until === null || row.slow_until === undefined ? null : Number(row.slow_until),
      });
      alertEndpoints.set(Number(row.id), {
        url: row.url,
        subscriberId: row.subscriber_id == null ? null : Number(row.subscriber_id),
        failingSince: row.failing_since === null ? null : Number(row.failing_since),
        lastFailureAt: row.last_failure_at === null ? null : Number(row.last_failure_at),
      });
    }
  const now = Number(read[0]?.now_ms ?? 0);
  const batch = decideAttempts(reports, options.policy, deliveries, endpoints, now);
  const laned = decideSlowLanes(reports, (id) => deliveries.get(id)?.endpointId, lanes, now);
  const alerts = decideAlerts(
    reports,
    batch.decisions,
    alertDeliveries,
    alertEndpoints,
    now,
    options.policy.alertAfterMs ?? 0,
  );

  const writes: Sql[] = [];
  const attempts = reports.flatMap((report, index) => {
    const decision = batch.decisions[index];
    return decision ? [attemptValues(report, decision)] : [];
  });
  if (attempts.length > 0)
    writes.push(
      sql`INSERT INTO webhook_attempts (${names(ATTEMPT_COLUMNS)})
          SELECT ${names(ATTEMPT_COLUMNS)} FROM ${dialect.table("a", ATTEMPT_COLUMNS, attempts)} ORDER BY n`,
    );
  const deliveryWrites = [...batch.deliveries].map(([id, write]): SqlValue[] => {
    const before = deliveries.get(id);
    return [
      id,
      write.attempts,
      write.rounds,
      write.finished === undefined ? 0 : 1,
      write.finished?.status ?? null,
      write.finished?.nextAttemptAt ?? null,
      write.finished?.lastStatus ?? null,
      write.finished?.lastError ?? null,
      write.finished?.updatedAt ?? null,
      before?.status ?? null,
      before?.leaseOwner ?? null,
      before?.leaseUntil ?? null,
      before?.attemptCount ?? null,
      before?.nextAttemptAt ?? null,
    ];
  });
  const deliveriesWrite = writes.length;
  if (deliveryWrites.length > 0)
    writes.push(
      sql`UPDATE webhook_deliveries AS d SET
            attempt_count = d.attempt_count + u.attempts, round_attempts = d.round_attempts + u.rounds,
            status = COALESCE(u.status, d.status), next_attempt_at = COALESCE(u.next_attempt_at, d.next_attempt_at),
            last_status = CASE WHEN u.finished = 1 THEN u.last_status ELSE d.last_status END,
            last_error = CASE WHEN u.finished = 1 THEN u.last_error ELSE d.last_error END,
            lease_owner = CASE WHEN u.finished = 1 THEN NULL ELSE d.lease_owner END,
            lease_until = CASE WHEN u.finished = 1 THEN NULL ELSE d.lease_until END,
            updated_at = COALESCE(u.updated_at, d.updated_at)
          FROM ${dialect.table("u", DELIVERY_WRITE_COLUMNS, deliveryWrites)}
          WHERE d.id = u.id AND d.status = u.read_status AND d.lease_owner IS NOT DISTINCT FROM u.read_owner
            AND d.lease_until IS NOT DISTINCT FROM u.read_until AND d.attempt_count = u.read_count
            AND d.next_attempt_at = u.read_next`,
    );
  const cleared = ascending(
    [...batch.endpoints].flatMap(([id, write]) => (write.kind === "clear" ? [id] : [])),
  );
  if (cleared.length > 0)
    // Guarded: every worker's success touches its endpoint's row, and an unconditional update would
    // serialise them all on that row's lock for nothing. An answer also ends a run of timeouts (the slow lane).
    writes.push(
      sql`UPDATE webhook_endpoints SET failing_since = NULL, timeouts = 0, slow_until = NULL WHERE id IN (
            SELECT id FROM webhook_endpoints WHERE ${dialect.isIn(raw("id"), cleared, "bigint")}
              AND (failing_since IS NOT NULL OR timeouts > 0) ORDER BY id${dialect.forUpdate})`,
    );
  const set = [...batch.endpoints].flatMap(([id, write]): SqlValue[][] =>
    write.kind === "set"
      ? [
          [
            id,
            write.status,
            write.disabledReason,
            write.failingSince,
            write.lastFailureAt,
            laned.get(id)?.timeouts ?? 0,
            laned.get(id)?.slowUntil ?? null,
          ],
        ]
      : [],
  );
  if (set.length > 0)
    writes.push(
      sql`UPDATE webhook_endpoints AS e SET status = u.status, disabled_reason = u.disabled_reason,
            failing_since = u.failing_since, last_failure_at = u.last_failure_at,
            timeouts = u.timeouts, slow_until = u.slow_until
          FROM ${dialect.table("u", ENDPOINT_WRITE_COLUMNS, set)} WHERE e.id = u.id`,
    );

  // The claim never takes a delivery just recorded, nor work for an endpoint this batch disabled: on
  // PostgreSQL it runs in the same statement and sees the rows as they were before it.
  const disabled = set
    .filter((endpoint) => endpoint[1] === "disabled")
    .map((endpoint) => endpoint[0] as number);
  const plan =
    options.claim && options.claim.limit > 0
      ? claimPlan(options.claim, ids, disabled, [...cleared, ...set.map((endpoint) => endpoint[0] as number)])
      : undefined;
  const { counts, claimed } = yield* ctx.store.writeAndClaim(ctx, writes, plan);
  if (deliveryWrites.length > 0 && counts[deliveriesWrite] !== deliveryWrites.length)
    throw new StaleReadError("a delivery changed between the record's read and its write");
  // Queued in this transaction, after the writes (so an endpoint this batch disabled is sent none): an
  // alert is never lost, nor sent for a change that rolled back.
  const raised = yield* queueAlerts(ctx, alerts);
  return {
    recorded: batch.decisions.map((decision, index) => {
      if (!decision) return undefined;
      const recorded = toRecordedAttempt(decision);
      const own = raised.get(index);
      if (own) recorded.alerts = own;
      return recorded;
    }),
    claimed: toClaimed(claimed, ctx.codec.open),
  };
}

/**
 * Queues each alert as a message of its operational type: addressed to the endpoint's subscriber (or,
 * addressed to nobody, to the operator's endpoints only: `ADDRESSED_TO_ENDPOINT`), and an endpoint's
 * alerts share an ordering key, so failing, disabled and recovered arrive in the order they happened.
 */
function* queueAlerts(
  ctx: QueueContext,
  alerts: ReadonlyArray<{ index: number; event: OperationalEvent }>,
): Operation<Map<number, OperationalEvent[]>> {
  const byIndex = new Map<number, OperationalEvent[]>();
  if (alerts.length === 0) return byIndex;
  const ordered = [...alerts].sort((a, b) => a.index - b.index);
  yield* ctx.store.insertMessages(
    ctx,
    ordered.map(({ event }) => ({
      webhookId: newWebhookId(),
      eventType: event.type,
      idempotencyKey: null,
      payload: JSON.stringify(event),
      traceparent: null,
      subscriberId: event.subscriberId,
      orderingKey: event.type === "delivery.failed" ? null : `endpoint:${event.endpointId}`,
    })),
  );
  for (const { index, event } of ordered) byIndex.set(index, [...(byIndex.get(index) ?? []), event]);
  return byIndex;
}
