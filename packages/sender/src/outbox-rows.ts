import type {
  AttemptOutcome,
  AttemptRecord,
  DeliveryRecord,
  DeliveryStatus,
  Endpoint,
  EndpointStatus,
  PlantRecord,
} from "./outbox.js";

// Rows as both stores return them (PostgreSQL BIGINT arrives as a string, hence Number()).
type Num = number | string;
type NullableNum = number | string | null;

export interface PlantRow {
  id: Num;
  name: string;
  tag: string | null;
  webhook_id: string;
  created_at: Num;
}

export interface EndpointRow {
  id: Num;
  url: string;
  token: string;
  secrets: string;
  status: string;
  disabled_reason: string | null;
  failing_since: NullableNum;
  created_at: Num;
}

export interface DeliveryRow {
  id: Num;
  plant_id: Num;
  endpoint_id: Num;
  webhook_id: string;
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

const date = (value: Num) => new Date(Number(value));

export function toPlant(row: PlantRow): PlantRecord {
  const plant: PlantRecord = {
    id: Number(row.id),
    name: row.name,
    webhookId: row.webhook_id,
    createdAt: date(row.created_at),
  };
  if (row.tag !== null) plant.tag = row.tag;
  return plant;
}

export function toEndpoint(row: EndpointRow): Endpoint {
  return {
    id: Number(row.id),
    url: row.url,
    token: row.token,
    secrets: JSON.parse(row.secrets) as string[],
    status: row.status as EndpointStatus,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since === null ? null : date(row.failing_since),
    createdAt: date(row.created_at),
  };
}

export function toDelivery(row: DeliveryRow): DeliveryRecord {
  return {
    id: Number(row.id),
    plantId: Number(row.plant_id),
    endpointId: Number(row.endpoint_id),
    webhookId: row.webhook_id,
    status: row.status as DeliveryStatus,
    attemptCount: Number(row.attempt_count),
    roundAttempts: Number(row.round_attempts),
    nextAttemptAt: date(row.next_attempt_at),
    lastStatus: row.last_status === null ? null : Number(row.last_status),
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
    status: row.status === null ? null : Number(row.status),
    error: row.error,
    responseBody: row.response_body,
    outcome: row.outcome as AttemptOutcome,
  };
}
