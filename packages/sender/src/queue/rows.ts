import type {
  AttemptOutcome,
  AttemptRecord,
  AttemptReport,
  ClaimedDelivery,
  DeliveryRecord,
  DeliveryStatus,
  Endpoint,
  EndpointAttemptStats,
  EndpointStatus,
  MessageRecord,
  RecordedAttempt,
  Subscriber,
} from "../outbox.js";
import type { AttemptDecision, DeliveryState, EndpointState } from "./decide-attempt.js";

// Rows as both stores return them (PostgreSQL BIGINT arrives as a string, hence Number()).
type Num = number | string;
type NullableNum = number | string | null;

export interface MessageRow {
  id: Num;
  webhook_id: string;
  event_type?: string | null;
  idempotency_key: string | null;
  payload: string;
  created_at: Num;
  traceparent?: string | null;
  subscriber_id?: NullableNum;
}

export interface EndpointRow {
  id: Num;
  url: string;
  token: string;
  secrets: string;
  status: string;
  disabled_reason: string | null;
  failing_since: NullableNum;
  last_failure_at: NullableNum;
  event_types?: string | null;
  rate_limit?: NullableNum;
  rate_tokens?: NullableNum;
  rate_at?: NullableNum;
  timeouts?: Num;
  slow_until?: NullableNum;
  subscriber_id?: NullableNum;
  verified_at?: NullableNum;
  signature_headers?: string | null;
  headers?: string | null;
  filter?: string | null;
  filtered_count?: Num;
  created_at: Num;
}

export interface SubscriberRow {
  id: Num;
  name: string;
  token_hash?: string;
  created_at: Num;
}

export interface DeliveryRow {
  id: Num;
  message_id: Num;
  endpoint_id: Num;
  webhook_id: string;
  event_type?: string | null;
  ordering_key?: string | null;
  status: string;
  attempt_count: Num;
  round_attempts: Num;
  next_attempt_at: Num;
  lease_owner?: string | null;
  lease_until?: NullableNum;
  last_status: NullableNum;
  last_error: string | null;
  created_at: Num;
  updated_at: Num;
}

export interface AttemptRow {
  id: Num;
  delivery_id: Num;
  attempt: Num;
  worker_id: string;
  started_at: Num;
  duration_ms: Num;
  status: NullableNum;
  error: string | null;
  response_body: string;
  outcome: string;
}

export interface EndpointStatsRow {
  endpoint_id: Num;
  attempts: Num;
  succeeded: Num;
  last_attempt_at: Num;
}

/**
 * The endpoint's columns a claimed row carries beside the delivery's (each as `e_<name>`, read back by
 * `toEndpoint`): an endpoint column the worker needs is added here and in `EndpointRow`, nowhere else.
 */
export const CLAIMED_ENDPOINT_COLUMNS = [
  "url",
  "token",
  "secrets",
  "status",
  "disabled_reason",
  "failing_since",
  "last_failure_at",
  "event_types",
  "rate_limit",
  "subscriber_id",
  "verified_at",
  "signature_headers",
  "headers",
  "filter",
  "filtered_count",
  "created_at",
] as const satisfies ReadonlyArray<keyof EndpointRow>;

type ClaimedEndpointColumns = {
  [Name in (typeof CLAIMED_ENDPOINT_COLUMNS)[number] as `e_${Name}`]: EndpointRow[Name];
};

/** A claimed delivery row, with its message's and endpoint's columns beside it (as both databases return it). */
export type ClaimedRow = DeliveryRow &
  ClaimedEndpointColumns & {
    m_payload: string;
    m_traceparent: string | null;
    /** A rate-limited endpoint's wait before this start (ms); null or absent: at once. */
    start_in_ms?: NullableNum;
  };

const date = (value: Num) => new Date(Number(value));
const nullableNumber = (value: NullableNum | undefined) =>
  value === null || value === undefined ? null : Number(value);

export function toMessage(row: MessageRow): MessageRecord {
  return {
    id: Number(row.id),
    webhookId: row.webhook_id,
    eventType: row.event_type ?? null,
    idempotencyKey: row.idempotency_key,
    payload: row.payload,
    createdAt: date(row.created_at),
    ...(row.traceparent ? { traceparent: row.traceparent } : {}),
    subscriberId: nullableNumber(row.subscriber_id),
  };
}

export function toSubscriber(row: SubscriberRow): Subscriber {
  return { id: Number(row.id), name: row.name, createdAt: date(row.created_at) };
}

const asStored = (stored: string) => stored;

/** `open` reads a stored token or secrets list back (decrypting it when the store has a cipher). */
export function toEndpoint(row: EndpointRow, open: (stored: string) => string = asStored): Endpoint {
  const subscriberId = nullableNumber(row.subscriber_id);
  const verifiedAt = nullableNumber(row.verified_at);
  return {
    id: Number(row.id),
    url: row.url,
    // No token is stored as "": nothing to seal, nothing to send.
    ...(row.token === "" ? {} : { token: open(row.token) }),
    secrets: JSON.parse(open(row.secrets)) as string[],
    status: row.status as EndpointStatus,
    rateLimit: nullableNumber(row.rate_limit ?? null),
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since === null ? null : date(row.failing_since),
    lastFailureAt: row.last_failure_at === null ? null : date(row.last_failure_at),
    eventTypes: row.event_types ? (JSON.parse(row.event_types) as string[]) : null,
    subscriberId,
    verifiedAt: verifiedAt === null ? null : date(verifiedAt),
    // The same rule as the fan-out's and the claim's (ENDPOINT_RECEIVES).
    verified: subscriberId === null || verifiedAt !== null,
    signatureHeaders: row.signature_headers === "svix" ? "svix" : "standard",
    // Sealed like the secrets: a JSON object of name → value once opened.
    headers: row.headers ? (JSON.parse(open(row.headers)) as Record<string, string>) : {},
    filter: row.filter ?? null,
    filteredCount: Number(row.filtered_count ?? 0),
    createdAt: date(row.created_at),
  };
}

export function toDelivery(row: DeliveryRow): DeliveryRecord {
  return {
    id: Number(row.id),
    messageId: Number(row.message_id),
    endpointId: Number(row.endpoint_id),
    webhookId: row.webhook_id,
    eventType: row.event_type ?? null,
    orderingKey: row.ordering_key ?? null,
    status: row.status as DeliveryStatus,
    attemptCount: Number(row.attempt_count),
    roundAttempts: Number(row.round_attempts),
    nextAttemptAt: date(row.next_attempt_at),
    lastStatus: nullableNumber(row.last_status),
    lastError: row.last_error,
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
  };
}

export function toAttempt(row: AttemptRow): AttemptRecord {
  return {
    id: Number(row.id),
    deliveryId: Number(row.delivery_id),
    attempt: Number(row.attempt),
    workerId: row.worker_id,
    startedAt: date(row.started_at),
    durationMs: Number(row.duration_ms),
    status: nullableNumber(row.status),
    error: row.error,
    responseBody: row.response_body,
    outcome: row.outcome as AttemptOutcome,
  };
}

/** The delivery as `decideAttempt` reads it. */
export function toDeliveryState(
  row: Pick<
    DeliveryRow,
    "status" | "lease_owner" | "lease_until" | "attempt_count" | "round_attempts" | "next_attempt_at"
  >,
): DeliveryState {
  return {
    status: row.status as DeliveryStatus,
    leaseOwner: row.lease_owner ?? null,
    leaseUntil: nullableNumber(row.lease_until),
    attemptCount: Number(row.attempt_count),
    roundAttempts: Number(row.round_attempts),
    nextAttemptAt: Number(row.next_attempt_at),
  };
}

/**
 * Claimed rows as the worker takes them, in due order. One parse (and decryption) of an endpoint's
 * secrets per claim, not one per delivery.
 */
export function toClaimed(rows: readonly ClaimedRow[], open: (stored: string) => string): ClaimedDelivery[] {
  const endpoints = new Map<number, Endpoint>();
  const claimed = rows.map((row): ClaimedDelivery => {
    const endpointId = Number(row.endpoint_id);
    let endpoint = endpoints.get(endpointId);
    if (!endpoint) {
      const columns = CLAIMED_ENDPOINT_COLUMNS.map((name) => [name, row[`e_${name}`]]);
      endpoint = toEndpoint({ id: endpointId, ...Object.fromEntries(columns) } as EndpointRow, open);
      endpoints.set(endpointId, endpoint);
    }
    // The delivery's own object, completed: a spread copied every field of it into another, per claimed row.
    const delivery = toDelivery(row) as ClaimedDelivery;
    delivery.body = row.m_payload;
    delivery.endpoint = endpoint;
    delivery.leaseUntil = date(row.lease_until as Num);
    if (row.m_traceparent !== null) delivery.traceparent = row.m_traceparent;
    if (row.start_in_ms !== null && row.start_in_ms !== undefined)
      delivery.startInMs = Math.max(0, Number(row.start_in_ms));
    return delivery;
  });
  return claimed.sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || a.id - b.id);
}

/** The endpoint as `decideAttempt` reads it. */
export function toEndpointState(
  row: Pick<EndpointRow, "status" | "failing_since" | "last_failure_at">,
): EndpointState {
  return {
    status: row.status as EndpointStatus,
    failingSince: nullableNumber(row.failing_since),
    lastFailureAt: nullableNumber(row.last_failure_at),
  };
}

/** The values of an attempt row, in `ATTEMPT_COLUMNS` order. */
export function attemptValues(report: AttemptReport, decision: AttemptDecision) {
  const { result } = report;
  return [
    report.deliveryId,
    decision.attemptNumber,
    report.workerId,
    result.startedAt.getTime(),
    Math.round(result.durationMs),
    result.status,
    result.error,
    result.responseBody,
    decision.outcome,
  ];
}

/** What `recordAttempts` answers for a decision. */
export function toRecordedAttempt(decision: AttemptDecision): RecordedAttempt {
  const recorded: RecordedAttempt = {
    held: decision.held,
    attempt: decision.attemptNumber,
    outcome: decision.outcome,
  };
  if (decision.nextAttemptAt !== undefined) recorded.nextAttemptAt = new Date(decision.nextAttemptAt);
  if (decision.retryInMs !== undefined) recorded.retryInMs = decision.retryInMs;
  if (decision.disabledEndpoint !== undefined) recorded.disabledEndpoint = decision.disabledEndpoint;
  return recorded;
}

export function toEndpointStats(row: EndpointStatsRow): EndpointAttemptStats {
  return {
    endpointId: Number(row.endpoint_id),
    attempts: Number(row.attempts),
    succeeded: Number(row.succeeded),
    lastAttemptAt: date(row.last_attempt_at),
  };
}
