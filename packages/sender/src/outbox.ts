/** A subscribed receiver. `secrets` holds every active signing secret (several during rotation). */
export interface Endpoint {
  id: number;
  url: string;
  token: string;
  secrets: string[];
  status: EndpointStatus;
  disabledReason: string | null;
  /** When the current run of failures began; null while the endpoint is healthy. */
  failingSince: Date | null;
  createdAt: Date;
}

export type EndpointStatus = "active" | "disabled";

export interface PlantRecord {
  id: number;
  name: string;
  tag?: string;
  /** The `webhook-id` of this plant's New Plant event, shared by every endpoint's delivery. */
  webhookId: string;
  createdAt: Date;
}

export type DeliveryStatus = "pending" | "delivered" | "failed";

export interface DeliveryRecord {
  id: number;
  plantId: number;
  endpointId: number;
  webhookId: string;
  status: DeliveryStatus;
  /** Attempts made over the delivery's whole life (replays included). */
  attemptCount: number;
  /** Attempts since the schedule last started over (creation, retry or replay): indexes the schedule. */
  roundAttempts: number;
  nextAttemptAt: Date;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A delivery a worker holds a lease on, with everything needed to send it. */
export interface ClaimedDelivery extends DeliveryRecord {
  /** The exact bytes to send, identical on every attempt. */
  body: string;
  endpoint: Endpoint;
  leaseUntil: Date;
}

export type AttemptOutcome = "delivered" | "retrying" | "failed" | "disabled";

export interface AttemptRecord {
  id: number;
  deliveryId: number;
  /** 1-based over the delivery's life. */
  attempt: number;
  workerId: string;
  startedAt: Date;
  durationMs: number;
  status: number | null;
  error: string | null;
  /** The first bytes of the receiver's answer (capped). */
  responseBody: string;
  outcome: AttemptOutcome;
}

export interface RecordAttemptInput {
  deliveryId: number;
  workerId: string;
  /**
   * The lease the attempt was made under (`ClaimedDelivery.leaseUntil`). When given, the attempt only
   * counts if the delivery is still held under this very claim, not a later claim by the same worker id.
   */
  leaseUntil?: Date;
  attempt: Omit<AttemptRecord, "id" | "deliveryId" | "workerId" | "outcome" | "attempt">;
  outcome: AttemptOutcome;
  /** When to try again (outcome `retrying`). */
  nextAttemptAt?: Date;
  /** Whether the endpoint answered with a 2xx (clears its failing run) or not (starts or extends it). */
  endpointSucceeded: boolean;
  /** Disable the endpoint with this reason (410 Gone). */
  disableEndpoint?: string;
  /**
   * Disable the endpoint when, with this failed attempt, it has been failing continuously for at least
   * this long. Decided inside the record's transaction from the endpoint row as it stands then (a success
   * recorded by another worker in the meantime counts), never from what the claim saw.
   */
  disableAfterMs?: number;
  /**
   * Two failures further apart than this are not one continuous run: the endpoint was idle in between
   * (no work for it), so its failing period starts again. Default `disableAfterMs`.
   */
  failureGapMs?: number;
}

/** What `recordAttempt` stored. */
export interface RecordedAttempt {
  /**
   * False when the worker no longer held the lease: the attempt is still logged (under its own
   * attempt number), but the delivery and the endpoint are left to the lease's current holder.
   */
  held: boolean;
  /** The outcome stored: the input's, or `disabled` when this attempt disabled the endpoint. */
  outcome: AttemptOutcome;
  /** Why this attempt disabled the endpoint, when it did. */
  disabledEndpoint?: string;
}

export interface AddEndpointInput {
  url: string;
  token: string;
  secrets: string[];
}

export interface ListDeliveriesOptions {
  status?: DeliveryStatus;
  endpointId?: number;
  limit?: number;
}

export interface ClaimOptions {
  /** At most this many deliveries of one endpoint per claim (isolation of slow endpoints). */
  perEndpointLimit?: number;
  /** Endpoints the caller cannot take more work for right now. */
  excludeEndpointIds?: readonly number[];
}

/**
 * The durable outbox. Adding a plant and queuing its deliveries is one transaction; workers
 * claim due deliveries under a lease, so a crashed worker's claim expires and another takes it.
 */
export interface Outbox {
  addPlant(input: {
    name: string;
    tag?: string;
  }): Promise<{ plant: PlantRecord; deliveries: DeliveryRecord[] }>;
  listPlants(limit?: number): Promise<PlantRecord[]>;
  addEndpoint(input: AddEndpointInput): Promise<Endpoint>;
  getEndpoint(id: number): Promise<Endpoint | undefined>;
  listEndpoints(): Promise<Endpoint[]>;
  /** Returns the endpoint, or undefined when there is none with this id. */
  setEndpointStatus(id: number, status: EndpointStatus, reason?: string): Promise<Endpoint | undefined>;
  setEndpointSecrets(id: number, secrets: string[]): Promise<Endpoint | undefined>;
  setEndpointToken(id: number, token: string): Promise<Endpoint | undefined>;
  /** Removes the endpoint with its deliveries and attempts; false when there was none. */
  removeEndpoint(id: number): Promise<boolean>;
  claimDue(
    workerId: string,
    limit: number,
    leaseMs: number,
    options?: ClaimOptions,
  ): Promise<ClaimedDelivery[]>;
  /** Stores the attempt and, while the worker holds the lease, moves the delivery and its endpoint on. */
  recordAttempt(input: RecordAttemptInput): Promise<RecordedAttempt>;
  /**
   * Optional: several attempts in one transaction (all or none), one result per input in order.
   * The worker uses it when present to record attempts finishing together with one commit.
   */
  recordAttempts?(inputs: readonly RecordAttemptInput[]): Promise<RecordedAttempt[]>;
  /** Gives a claimed delivery back untouched, due at once (used on shutdown). */
  release(deliveryId: number, workerId: string): Promise<void>;
  getDelivery(id: number): Promise<DeliveryRecord | undefined>;
  listDeliveries(options?: ListDeliveriesOptions): Promise<DeliveryRecord[]>;
  listAttempts(deliveryId: number): Promise<AttemptRecord[]>;
  /** Makes one delivery due now with a fresh schedule; undefined when there is none. */
  retryDelivery(id: number): Promise<DeliveryRecord | undefined>;
  /** Queues again every plant added since `since` for one endpoint; returns how many deliveries. */
  replay(endpointId: number, since: Date): Promise<number>;
  /** Calls `listener` when new work may be due (this process, or all processes on PostgreSQL). */
  onWork(listener: () => void): () => void;
  close(): Promise<void>;
}

export const OUTBOX_NOTIFY_CHANNEL = "plant_store_outbox";
