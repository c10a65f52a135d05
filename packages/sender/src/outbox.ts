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
  /** When the endpoint last failed (a run of failures further apart than the policy's gap starts over). */
  lastFailureAt: Date | null;
  createdAt: Date;
}

export type EndpointStatus = "active" | "disabled";

/** What a caller queues: the JSON body every subscribed endpoint receives. */
export interface MessageInput {
  /** The JSON body to send: serialised once, so every endpoint and every attempt gets the same bytes. */
  payload: unknown;
  /** The `webhook-id` to send (Standard Webhooks id rules); default a fresh `msg_<uuid>`. */
  webhookId?: string;
  /**
   * A key the caller chooses (a request id, an order number): enqueueing it again while the first
   * message is retained queues nothing and answers with the first message.
   */
  idempotencyKey?: string;
}

/** What `enqueue` did. */
export interface EnqueueResult {
  messageId: number;
  webhookId: string;
  /** True when the idempotency key was already known: nothing new was queued. */
  duplicate: boolean;
  /** Deliveries queued by this call (one per active endpoint; 0 for a duplicate). */
  deliveries: number;
}

/** A queued message as stored. */
export interface MessageRecord {
  id: number;
  webhookId: string;
  idempotencyKey: string | null;
  /** The exact bytes sent. */
  payload: string;
  createdAt: Date;
  /** The W3C trace context stored at enqueue; absent for messages queued before 0.3. */
  traceparent?: string;
}

/** Every status a delivery can have, for callers that validate or list them. */
export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryRecord {
  id: number;
  messageId: number;
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
  /**
   * The W3C `traceparent` stored with the message at enqueue: every attempt (retries and replays
   * included) continues this trace. Absent for messages queued before 0.3.
   */
  traceparent?: string;
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
  /** When to try again (outcome `retrying`), as decided by the worker's clock. */
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
  messageId?: number;
  limit?: number;
}

export interface ClaimOptions {
  /** At most this many deliveries of one endpoint per claim (isolation of slow endpoints). */
  perEndpointLimit?: number;
  /** Endpoints the caller cannot take more work for right now. */
  excludeEndpointIds?: readonly number[];
}

/** A claim made together with a record (`recordAttemptsAndClaim`): `claimDue`'s arguments. */
export interface ClaimRequest {
  workerId: string;
  limit: number;
  leaseMs: number;
  options?: ClaimOptions;
}

/** What `recordAttemptsAndClaim` did: one result per input in order, and the deliveries it claimed. */
export interface RecordAndClaimResult {
  recorded: RecordedAttempt[];
  claimed: ClaimedDelivery[];
}

export interface SweepOptions {
  /** Finished deliveries (delivered or failed) last touched longer ago than this go, with their attempts. */
  olderThanMs: number;
  /** At most this many deliveries and this many messages in one call (one short transaction); default 500. */
  batchSize?: number;
}

/** One endpoint's attempts over a window (`Outbox.endpointStats`): what its success rate is made of. */
export interface EndpointAttemptStats {
  endpointId: number;
  /** Attempts started in the window, whatever their outcome. */
  attempts: number;
  /** Those the endpoint answered with a 2xx. */
  succeeded: number;
  /** When the latest of them started. */
  lastAttemptAt: Date;
}

/** What one `sweep` call deleted. */
export interface SweepResult {
  deliveries: number;
  attempts: number;
  messages: number;
}

/**
 * The durable delivery queue. Enqueueing a message and queuing its deliveries (one per active
 * endpoint) is one transaction, which can be the caller's own; workers claim due deliveries under a
 * lease, so a crashed worker's claim expires and another takes it. It knows nothing of what the
 * payload means.
 */
export interface Outbox {
  /** Queues one message for every active endpoint. */
  enqueue(message: MessageInput): Promise<EnqueueResult>;
  getMessage(id: number): Promise<MessageRecord | undefined>;
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
  /** Several attempts in one transaction (all or none), one result per input in order. */
  recordAttempts(inputs: readonly RecordAttemptInput[]): Promise<RecordedAttempt[]>;
  /**
   * Optional: `recordAttempts` and then `claimDue` in one transaction (all or none), so the work that
   * replaces finished attempts costs no commit of its own. A worker uses it when the store has it.
   */
  recordAttemptsAndClaim?(
    inputs: readonly RecordAttemptInput[],
    claim: ClaimRequest,
  ): Promise<RecordAndClaimResult>;
  /** Gives a claimed delivery back untouched, due at once (used on shutdown). */
  release(deliveryId: number, workerId: string): Promise<void>;
  getDelivery(id: number): Promise<DeliveryRecord | undefined>;
  listDeliveries(options?: ListDeliveriesOptions): Promise<DeliveryRecord[]>;
  listAttempts(deliveryId: number): Promise<AttemptRecord[]>;
  /**
   * Attempts started at or after `since`, counted per endpoint (endpoints with none are left out): an
   * operator's "success rate over the last hour". Attempts removed by retention are not counted.
   */
  endpointStats(since: Date): Promise<EndpointAttemptStats[]>;
  /** Makes one delivery due now with a fresh schedule; undefined when there is none. */
  retryDelivery(id: number): Promise<DeliveryRecord | undefined>;
  /** Queues again every retained message enqueued since `since` for one endpoint; returns how many deliveries. */
  replay(endpointId: number, since: Date): Promise<number>;
  /**
   * Retention: deletes one batch of finished deliveries older than `olderThanMs` with their attempts,
   * and messages that old with no delivery left. A pending delivery (due or retrying) is never deleted,
   * nor is its message.
   */
  sweep(options: SweepOptions): Promise<SweepResult>;
  /** Calls `listener` when new work may be due (this process, or all processes on PostgreSQL). */
  onWork(listener: () => void): () => void;
  close(): Promise<void>;
}

export const OUTBOX_NOTIFY_CHANNEL = "plant_store_outbox";
