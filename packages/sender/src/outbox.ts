import type { OperationalEvent, SignatureHeaderStyle } from "@plant-store/types";
import type { AttemptResult } from "./attempt-result.js";
import type { AttemptOutcome, RetryPolicy } from "./retry-policy.js";

/** A subscribed receiver. `secrets` holds every active signing secret (several during rotation). */
export interface Endpoint {
  id: number;
  url: string;
  /**
   * The bearer token sent as `Authorization` with every attempt; absent for an endpoint whose webhooks
   * need none (their document's `security` names no bearer scheme): nothing is sent then.
   */
  token?: string;
  secrets: string[];
  status: EndpointStatus;
  /**
   * At most this many deliveries a second are started to it, by all the workers sharing the database
   * together: a second's worth at once at most, then that rate; null: no limit.
   */
  rateLimit: number | null;
  disabledReason: string | null;
  /** When the current run of failures began; null while the endpoint is healthy. */
  failingSince: Date | null;
  /** When the endpoint last failed (a run of failures further apart than the policy's gap starts over). */
  lastFailureAt: Date | null;
  /**
   * The event types it receives (`orderCreated`; a trailing `*` matches a prefix, `order*`), or null
   * for every message: what an endpoint has unless it was given a list.
   */
  eventTypes: string[] | null;
  /** The subscriber it belongs to, or null for the operator's own (every endpoint made before subscribers). */
  subscriberId: number | null;
  /**
   * When its owner last proved it wants these webhooks (`markEndpointVerified`); null until then, and
   * again after its URL changes. Only a subscriber's endpoint needs it.
   */
  verifiedAt: Date | null;
  /**
   * Whether it receives messages at all: an operator's endpoint always, a subscriber's once verified. An
   * unverified endpoint gets no fan-out and none of its queued deliveries are claimed.
   */
  verified: boolean;
  /**
   * The names its signature headers go under: `standard` (`webhook-id`, `webhook-timestamp`,
   * `webhook-signature`) or `svix` (`svix-id`, ...: a receiver verifying with the `svix` library). The
   * signature is the same Standard Webhooks one either way.
   */
  signatureHeaders: SignatureHeaderStyle;
  /**
   * Static headers sent with every attempt, the verification handshake included (an API key for the
   * subscriber's gateway): name → value, at most `MAX_ENDPOINT_HEADERS`. The values are secrets:
   * encrypted at rest with the token and signing secrets, never logged; show them masked.
   */
  headers: Record<string, string>;
  /**
   * A CEL expression over `{ eventType, payload }` a message must make `true` to be delivered to it
   * (`payload.tag == "tropical"`); null: every message it subscribes to. Evaluated once per message at
   * enqueue, in the enqueue's transaction; an expression that errors on a message excludes it.
   */
  filter: string | null;
  /** Messages its filter excluded (counted at enqueue; the messages it subscribes to and was addressed). */
  filteredCount: number;
  createdAt: Date;
}

/** A customer of the store with endpoints of its own (Svix: an application). */
export interface Subscriber {
  id: number;
  name: string;
  createdAt: Date;
}

/**
 * A new subscriber and its API token. The token is shown here only: the store keeps its SHA-256 digest,
 * so neither the database nor a log can give it back.
 */
export interface AddedSubscriber {
  subscriber: Subscriber;
  token: string;
}

/** What `addSubscriber` takes. */
export interface AddSubscriberInput {
  /** Shown to the operator: 1 to 200 characters, no control characters. */
  name: string;
}

/**
 * Reads and changes limited to one subscriber's objects: another subscriber's (or the operator's) answer
 * exactly as an id that does not exist, and nothing changes. The scope is part of the statement's WHERE,
 * so there is no gap between the check and the change. Without a scope, everything (the operator).
 */
export interface SubscriberScope {
  subscriberId: number;
}

export type EndpointStatus = "active" | "disabled";

/**
 * What a caller queues: the JSON body every subscribed endpoint receives. Typed by event type when the
 * outbox is (`Outbox<Events>`: event type → payload type, e.g. `PlantStoreEvents`); untyped, any payload
 * with or without a type.
 */
export type MessageInput<Events extends EventMap = EventMap> = string extends keyof Events
  ? UntypedMessage
  : { [Type in keyof Events & string]: TypedMessage<Type, Events[Type]> }[keyof Events & string];

/** Event type → payload type. */
export type EventMap = Record<string, unknown>;

/** A message of one event type. */
export interface TypedMessage<Type extends string, Payload> extends UntypedMessage {
  eventType: Type;
  payload: Payload;
}

/** A message as an untyped outbox takes it. */
export interface UntypedMessage {
  /**
   * Its event type: only the endpoints subscribed to it receive it (those without a list receive every
   * message), each attempt says it in a `webhook-event-type` header, and an outbox given a catalog checks
   * the payload against the type's schema. Without one, only endpoints without a list receive it.
   */
  eventType?: string;
  /** The JSON body to send: serialised once, so every endpoint and every attempt gets the same bytes. */
  payload: unknown;
  /** The `webhook-id` to send (Standard Webhooks id rules); default a fresh `msg_<uuid>`. */
  webhookId?: string;
  /**
   * A key the caller chooses (a request id, an order number): enqueueing it again with the same payload,
   * while the first message is retained, queues nothing and answers with the first message; with another
   * payload it is refused (`IdempotencyConflictError`), since a retry must not change what was sent.
   */
  idempotencyKey?: string;
  /**
   * Addressed to one subscriber: only its endpoints receive it (and a replay never sends it anywhere
   * else). Without it, every subscribed endpoint, the operator's and every subscriber's.
   */
  subscriberId?: number;
  /**
   * Deliveries of messages with the same key to the same endpoint are attempted in the order they were
   * queued, one at a time, across every worker sharing the database: a delivery waits until the one
   * queued before it with its key has been delivered or has failed for good. A delivery being retried
   * holds back only its key on its endpoint (not the endpoint, not other keys). 1 to 255 characters.
   */
  orderingKey?: string;
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
  eventType: string | null;
  idempotencyKey: string | null;
  /** The exact bytes sent. */
  payload: string;
  createdAt: Date;
  /** The W3C trace context stored at enqueue; absent for messages queued before 0.3. */
  traceparent?: string;
  /** The subscriber it was addressed to; null for a message to every subscribed endpoint. */
  subscriberId: number | null;
}

/** Every status a delivery can have, for callers that validate or list them. */
export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryRecord {
  id: number;
  messageId: number;
  endpointId: number;
  webhookId: string;
  /** Its message's event type (null for a message queued without one). */
  eventType: string | null;
  /** Its message's ordering key (null: attempted in any order). */
  orderingKey: string | null;
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
  /**
   * Wait this long after the claim (ms) before sending: a rate-limited endpoint's starts are spaced by
   * the claim, so that no second holds more than its limit. Absent: send at once.
   */
  startInMs?: number;
}

export type { AttemptOutcome };

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

/** What a worker reports of one attempt; the outbox decides what follows (`decideAttempt`). */
export interface AttemptReport {
  deliveryId: number;
  workerId: string;
  /**
   * The lease the attempt was made under (`ClaimedDelivery.leaseUntil`). When given, the attempt only
   * counts if the delivery is still held under this very claim, not a later claim by the same worker id.
   */
  leaseUntil?: Date;
  result: AttemptResult;
}

/** How `recordAttempts` decides and what it claims with the record. */
export interface RecordOptions {
  /** The worker's retry policy: what follows each answer, and when an endpoint failing too long is disabled. */
  /** `alertAfterMs` absent: a run is alerted at its first failure. */
  policy: Pick<RetryPolicy, "decide" | "disableAfterMs" | "failureGapMs"> &
    Partial<Pick<RetryPolicy, "alertAfterMs">>;
  /**
   * Claims due work in the same transaction, after the record (never a delivery it just recorded, never
   * for an endpoint it just disabled): the slots the attempts free are filled without a commit of their own.
   */
  claim?: ClaimRequest;
}

/** What the outbox stored for one attempt, and decided. */
export interface RecordedAttempt {
  /**
   * False when the worker no longer held the lease: the attempt is still logged (under its own
   * attempt number), but the delivery and the endpoint are left to the lease's current holder.
   */
  held: boolean;
  /** The attempt's number, 1-based over the delivery's life. */
  attempt: number;
  /** The outcome stored: the policy's, or `disabled` when this attempt disabled the endpoint. */
  outcome: AttemptOutcome;
  /** When the next attempt is due (outcome `retrying`), on the store's clock. */
  nextAttemptAt?: Date;
  /** The same as a delay from when it was recorded: wake after this long, whatever the local clock says. */
  retryInMs?: number;
  /** Why this attempt disabled the endpoint, when it did. */
  disabledEndpoint?: string;
  /**
   * The operational events this attempt caused (its endpoint started failing, was disabled, recovered;
   * its delivery failed for good), each queued as an operational webhook in the record's transaction.
   */
  alerts?: OperationalEvent[];
}

/** An alert the outbox queued (an operational message), as `listAlerts` answers it. */
export interface AlertRecord {
  messageId: number;
  webhookId: string;
  createdAt: Date;
  alert: OperationalEvent;
}

/** What `recordAttempts` did: one result per report (in order; undefined where the delivery is gone), and what it claimed. */
export interface RecordResult {
  recorded: Array<RecordedAttempt | undefined>;
  claimed: ClaimedDelivery[];
}

export interface AddEndpointInput {
  url: string;
  /**
   * Its bearer token. May be left out only on an outbox with a catalog, when no webhook the endpoint
   * receives needs one (`requiresToken: false`, from its document's `security`): then no `Authorization`
   * header is sent. Otherwise `InvalidEndpointError`.
   */
  token?: string;
  /** 1 to `MAX_ENDPOINT_SECRETS` signing secrets (`whsec_` or `whsk_`): each signs every attempt. */
  secrets: string[];
  /** The event types it receives (a trailing `*` matches a prefix); absent or null: every message. */
  eventTypes?: string[] | null;
  /**
   * The subscriber it belongs to (it then receives nothing until `markEndpointVerified`); absent or
   * null: the operator's own, which needs no verification.
   */
  subscriberId?: number | null;
  /** Deliveries a second at most (1 to `MAX_RATE_LIMIT`), across every worker; absent or null: none. */
  rateLimit?: number | null;
  /** `standard` (default) or `svix`: the names its signature headers go under. */
  signatureHeaders?: SignatureHeaderStyle;
  /** Static headers sent with every attempt (`EndpointHeadersSchema`'s rules); absent: none. */
  headers?: Record<string, string>;
  /**
   * A CEL filter over `{ eventType, payload }` (`compileEndpointFilter`'s rules: at most 4,096
   * characters, no loops); absent or null: none. `InvalidEndpointFilterError` names a problem's place.
   */
  filter?: string | null;
}

/** One owner's endpoints, as `countEndpoints` counts them for its caps. */
export interface EndpointCounts {
  /** Every endpoint it owns. */
  endpoints: number;
  /** Those with a rate limit. */
  rateLimited: number;
  /** Those at the URL asked about (0 when none was). */
  atUrl: number;
}

/** The highest rate limit an endpoint takes, in deliveries a second. */
export const MAX_RATE_LIMIT = 10_000;

/** What `ensureEndpoint` found or made. */
export interface EnsuredEndpoint {
  endpoint: Endpoint;
  /** True when no endpoint had this URL: one was added. */
  created: boolean;
  /** True when the endpoint existed with another token or other secrets, now replaced by these. */
  updated: boolean;
}

/** What `updateEndpoint` changes: any of them, together, in one transaction. */
export interface EndpointChanges {
  url?: string;
  /** A new bearer token; null: none from now on (only where no webhook it receives needs one). */
  token?: string | null;
  /** Its new subscriptions; null: every message again. */
  eventTypes?: string[] | null;
  /** Replaces the whole list (1 to `MAX_ENDPOINT_SECRETS`; duplicates dropped). */
  secrets?: string[];
  /** Its new rate limit (the burst starts full again); null: none. */
  rateLimit?: number | null;
  /** The names its signature headers go under from the next attempt on. */
  signatureHeaders?: SignatureHeaderStyle;
  /** Replaces all of its static headers (`{}`: none). */
  headers?: Record<string, string>;
  /** Its new filter, applied from the next enqueue on; null: none. */
  filter?: string | null;
}

/** What `rotateEndpointSecret` did. */
export interface RotatedSecret {
  endpoint: Endpoint;
  /** The secret added: the one given, or a new `whsec_` secret drawn for it (show it once). */
  secret: string;
}

export interface ListDeliveriesOptions {
  status?: DeliveryStatus;
  eventType?: string;
  endpointId?: number;
  messageId?: number;
  /** Only the deliveries to this subscriber's endpoints. */
  subscriberId?: number;
  limit?: number;
}

/** What `listEvents` takes: where to start and how many. */
export interface ListEventsOptions {
  /** A cursor a page answered (`next`, or an `EventsExpiredError`'s `oldestCursor`); absent: from the oldest retained event. */
  after?: string;
  /** Without `after`: only the messages queued at or after this time. */
  since?: Date;
  /** At most this many events, 1 to `MAX_EVENTS_PAGE`; default 100. */
  limit?: number;
  /** Only an endpoint of this subscriber's: another's answers as a missing one. */
  scope?: SubscriberScope;
  /**
   * Only when this is the endpoint's bearer token (compared in constant time): with another, the endpoint
   * answers as a missing one. Lets a route that takes the endpoint's own token read the endpoint once.
   */
  token?: string;
}

/** The most events one `listEvents` page holds. */
export const MAX_EVENTS_PAGE = 1000;

/** What `listExcluded` takes: where to start and how many. */
export interface ListExcludedOptions {
  /** A cursor a page answered (`next`); absent: from the oldest retained message. */
  after?: string;
  /** At most this many messages, 1 to `MAX_EVENTS_PAGE`; default 100. */
  limit?: number;
  /** Only an endpoint of this subscriber's: another's answers as a missing one. */
  scope?: SubscriberScope;
}

/** A message an endpoint's filter excluded: the endpoint got no delivery of it. */
export interface ExcludedMessage {
  messageId: number;
  webhookId: string;
  eventType: string | null;
  /** When the message was queued (and its filter decided). */
  createdAt: Date;
}

/** A page of the messages an endpoint's filter excluded, oldest first. */
export interface ExcludedPage {
  messages: ExcludedMessage[];
  /** The cursor after this page's last message; null when the page is empty. */
  next: string | null;
}

/**
 * One message addressed to an endpoint, as a push would carry it: `headers` are the Standard Webhooks
 * headers signed now with the endpoint's current keys over `body`, the exact text that is signed.
 */
export interface EndpointEvent {
  webhookId: string;
  eventType: string | null;
  /** When the message was queued. */
  timestamp: Date;
  headers: Record<string, string>;
  body: string;
}

/** A page of an endpoint's events, oldest first. */
export interface EventPage {
  events: EndpointEvent[];
  /** The cursor after this page's last event; null when the page is empty (ask again later from the same cursor). */
  next: string | null;
}

/** What a worker claims: at most `limit` due deliveries, leased to it for `leaseMs`. */
export interface ClaimRequest {
  workerId: string;
  limit: number;
  leaseMs: number;
  /** At most this many deliveries of one endpoint per claim (isolation of slow endpoints); default `limit`. */
  perEndpointLimit?: number;
  /** Endpoints the caller cannot take more work for right now. */
  excludeEndpointIds?: readonly number[];
  /**
   * At most this many deliveries of one owner (a subscriber, or the operator) per claim; default `limit`.
   * Owners take turns in a claim whatever this is: each owner's earliest due, then each one's next...
   */
  perOwnerLimit?: number;
  /** Owners (subscriber ids, `null` for the operator's endpoints) the caller cannot take more work for right now. */
  excludeOwners?: ReadonlyArray<number | null>;
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
 * The durable delivery queue, the same on SQLite and PostgreSQL. Enqueueing a message and queuing its
 * deliveries (one per active endpoint) is one transaction, which can be the caller's own; workers claim
 * due deliveries under a lease, so a crashed worker's claim expires and another takes it. It knows
 * nothing of what the payload means.
 */
export interface Outbox<Events extends EventMap = EventMap> {
  /** Queues one message for every active endpoint. */
  enqueue(message: MessageInput<Events>): Promise<EnqueueResult>;
  /** Several messages in one transaction, one result per message in order; all or none. */
  enqueueMany(messages: ReadonlyArray<MessageInput<Events>>): Promise<EnqueueResult[]>;
  /** Scoped: a message addressed to the subscriber or delivered to one of its endpoints. */
  getMessage(id: number, scope?: SubscriberScope): Promise<MessageRecord | undefined>;
  addEndpoint(input: AddEndpointInput): Promise<Endpoint>;
  /**
   * The endpoint with this URL, made to have this token and these secrets (added if there is none):
   * what a service calls at every start. Its status is left as it is (an operator may have disabled it).
   */
  ensureEndpoint(input: AddEndpointInput): Promise<EnsuredEndpoint>;
  getEndpoint(id: number, scope?: SubscriberScope): Promise<Endpoint | undefined>;
  listEndpoints(scope?: SubscriberScope): Promise<Endpoint[]>;
  /**
   * One owner's endpoints counted, for caps per owner: `subscriberId` null counts the operator's own only
   * (no subscriber's), a number that subscriber's; `url` also counts its endpoints at that URL.
   */
  countEndpoints(subscriberId: number | null, url?: string): Promise<EndpointCounts>;
  /**
   * Marks a subscriber's endpoint as verified now (its owner answered the handshake): from now on it
   * receives fan-out, and its queued deliveries are claimed. An operator's endpoint is answered as it
   * is (it needs none); undefined when there is no such endpoint (in the scope). Pass `verifiedUrl`, the
   * URL the handshake went to (`verifyEndpoint`'s `endpoint.url`): an endpoint whose URL changed while the
   * handshake ran is then left unverified and answered undefined, checked in the same statement.
   */
  markEndpointVerified(
    id: number,
    scope?: SubscriberScope,
    verifiedUrl?: string,
  ): Promise<Endpoint | undefined>;
  /** A new subscriber and its token (`pss_` and 43 base64url characters), which is not kept. */
  addSubscriber(input: AddSubscriberInput): Promise<AddedSubscriber>;
  /** The subscriber whose token this is; undefined for any other string (compared by digest). */
  authenticateSubscriber(token: string): Promise<Subscriber | undefined>;
  /** A new token for the subscriber, the old one refused from now on; undefined when there is none. */
  rotateSubscriberToken(id: number): Promise<string | undefined>;
  /**
   * Queues one message to one endpoint only (a subscriber's "send an example"), addressed to the
   * endpoint's subscriber so no replay takes it elsewhere; undefined when there is no such endpoint (in
   * the scope). It is delivered like any other, once the endpoint receives at all.
   */
  sendToEndpoint(
    endpointId: number,
    message: UntypedMessage,
    scope?: SubscriberScope,
  ): Promise<EnqueueResult | undefined>;
  getSubscriber(id: number): Promise<Subscriber | undefined>;
  listSubscribers(): Promise<Subscriber[]>;
  /**
   * Removes a subscriber with its endpoints, their deliveries and attempts, and the messages addressed
   * to it; false when there was none.
   */
  removeSubscriber(id: number): Promise<boolean>;
  /** Changes URL, token and secrets together, in one transaction; undefined when there is no such endpoint. */
  updateEndpoint(
    id: number,
    changes: EndpointChanges,
    scope?: SubscriberScope,
  ): Promise<Endpoint | undefined>;
  /**
   * Adds a signing secret, keeping the current ones (Standard Webhooks' rotation: every secret signs
   * each attempt until the old one is dropped with `updateEndpoint`), in one transaction. A secret the
   * endpoint already has is not added twice; `TooManySecretsError` at `MAX_ENDPOINT_SECRETS`.
   */
  rotateEndpointSecret(
    id: number,
    secret?: string,
    scope?: SubscriberScope,
  ): Promise<RotatedSecret | undefined>;
  /** Returns the endpoint, or undefined when there is none with this id. */
  setEndpointStatus(
    id: number,
    status: EndpointStatus,
    reason?: string,
    scope?: SubscriberScope,
  ): Promise<Endpoint | undefined>;
  /** Removes the endpoint with its deliveries and attempts; false when there was none. */
  removeEndpoint(id: number, scope?: SubscriberScope): Promise<boolean>;
  /**
   * Rewrites every endpoint's token and secrets under the cipher's current key (plain ones included), in
   * one transaction; answers how many endpoints changed.
   */
  reencryptEndpoints(): Promise<number>;
  /** Leases due deliveries to a worker. */
  claimDue(request: ClaimRequest): Promise<ClaimedDelivery[]>;
  /**
   * Stores a batch of attempts in one transaction (all or none), deciding for each what follows, and
   * claims the work that replaces them when asked (`options.claim`).
   */
  recordAttempts(reports: readonly AttemptReport[], options: RecordOptions): Promise<RecordResult>;
  /** Gives claimed deliveries back untouched, due at once (used on shutdown). */
  release(deliveryIds: readonly number[], workerId: string): Promise<void>;
  getDelivery(id: number, scope?: SubscriberScope): Promise<DeliveryRecord | undefined>;
  listDeliveries(options?: ListDeliveriesOptions): Promise<DeliveryRecord[]>;
  /** Scoped: none for another subscriber's delivery, as for one that does not exist. */
  listAttempts(deliveryId: number, scope?: SubscriberScope): Promise<AttemptRecord[]>;
  /**
   * Attempts started at or after `since`, counted per endpoint (endpoints with none are left out): an
   * operator's "success rate over the last hour". Attempts removed by retention are not counted.
   */
  endpointStats(since: Date, scope?: SubscriberScope): Promise<EndpointAttemptStats[]>;
  /**
   * The alerts queued since `since` (endpoint failing, disabled, recovered; delivery failed), newest
   * first, at most `limit` (500); in a subscriber's scope, its own endpoints' only.
   */
  listAlerts(since: Date, limit: number, scope?: SubscriberScope): Promise<AlertRecord[]>;
  /**
   * Makes one delivery due now with a fresh schedule; undefined when there is none. An attempt of it in
   * flight meanwhile only counts when recorded: the delivery is sent again all the same.
   */
  retryDelivery(id: number, scope?: SubscriberScope): Promise<DeliveryRecord | undefined>;
  /**
   * Queues again every retained message enqueued since `since` for one endpoint; returns how many
   * deliveries. Each is sent again, even one whose attempt is in flight when the replay lands (that
   * attempt only counts when recorded).
   */
  replay(endpointId: number, since: Date, scope?: SubscriberScope): Promise<number>;
  /**
   * The messages addressed to one endpoint (its deliveries, whatever became of them), oldest first, each
   * signed now as a push would be. `undefined` for a missing endpoint (or one outside `scope`); throws
   * `EventsExpiredError` for a cursor older than what retention kept, and `InvalidCursorError` for one
   * that is not a cursor.
   */
  listEvents(endpointId: number, options?: ListEventsOptions): Promise<EventPage | undefined>;
  /**
   * The messages the endpoint's filter excluded (decided at their enqueue, or a replay's), oldest
   * first, page by page: as long as retention keeps the message. `undefined` for a missing endpoint (or
   * one outside `scope`); throws `InvalidCursorError` for a cursor that is not one, `RangeError` for a
   * `limit` outside 1 to `MAX_EVENTS_PAGE`.
   */
  listExcluded(endpointId: number, options?: ListExcludedOptions): Promise<ExcludedPage | undefined>;
  /**
   * Retention: deletes one batch of finished deliveries older than `olderThanMs` with their attempts,
   * and messages that old with no delivery left. A pending delivery (due or retrying) is never deleted,
   * nor is its message.
   */
  sweep(options: SweepOptions): Promise<SweepResult>;
  /** Calls `listener` when new work may be due (this process, or all processes on PostgreSQL). */
  onWork(listener: () => void): () => void;
  close(): Promise<void>;

  /**
   * Charts: attempts started at or after `since`, per minute (attempts, 2xx answers) and per endpoint
   * (p50 and p95 of their durations), in the scope. Its cost grows with the attempts in the window:
   * meant for windows of up to a day. Attempts removed by retention are not counted.
   */
  attemptTimeline(since: Date, scope?: SubscriberScope): Promise<AttemptTimeline>;
}

/** The PostgreSQL channel every outbox `LISTEN`s on and `NOTIFY`s when work is queued. */
export const OUTBOX_NOTIFY_CHANNEL = "webhook_outbox";

/** Most signing secrets one endpoint signs with at once (during rotations). */
export const MAX_ENDPOINT_SECRETS = 10;

/** One minute of attempts (`Outbox.attemptTimeline`): what a "deliveries per minute" bar is made of. */
export interface AttemptMinute {
  /** The minute's first millisecond (Unix time, a multiple of 60,000). */
  start: Date;
  /** Attempts started in the minute, whatever their outcome. */
  attempts: number;
  /** Those the endpoint answered with a 2xx. */
  succeeded: number;
}

/** One endpoint's attempt latencies over the window. */
export interface EndpointLatency {
  endpointId: number;
  attempts: number;
  /** Nearest-rank percentiles of the attempts' `durationMs` (answers, errors and timeouts alike). */
  p50Ms: number;
  p95Ms: number;
}

/** The attempts started since a time, for charts: per minute, and latency per endpoint. */
export interface AttemptTimeline {
  /** Only minutes with at least one attempt, oldest first. */
  minutes: AttemptMinute[];
  /** Only endpoints with at least one attempt, by id. */
  endpoints: EndpointLatency[];
}
