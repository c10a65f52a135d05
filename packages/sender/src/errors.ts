// Every error the sender can raise, grouped by who raises it; each has a stable `code` that callers (the
// app's HTTP layer among them) map by, rather than by class identity, which two copies of a package break.

// --- Thrown by enqueue (`enqueue`, `enqueueSync`, `sendToEndpoint`): the message is refused before anything is written.

/** Thrown by `enqueue` for a message that could never be delivered as given; nothing was queued. */
export class InvalidMessageError extends Error {
  readonly code = "ERR_INVALID_MESSAGE";
  override readonly name = "InvalidMessageError";
}

/** One field a payload schema refused: its path in the payload (`items.0.id`, or `""` for the whole) and why. */
export interface PayloadIssue {
  path: string;
  message: string;
}

/**
 * Thrown by `enqueue` on an outbox given a catalog when the payload does not satisfy its event type's
 * schema: refused before anything is written, rather than retried against every receiver for days.
 */
export class InvalidPayloadError extends Error {
  readonly code = "ERR_INVALID_PAYLOAD";
  override readonly name = "InvalidPayloadError";
  constructor(
    message: string,
    readonly eventType: string,
    readonly issues: readonly PayloadIssue[],
  ) {
    super(message);
  }
}

/**
 * Thrown by `enqueue` when an idempotency key already names a message with another payload: a retry
 * of the same request must carry the same payload, so this is another request reusing the key (an
 * HTTP API answers it with 409). Nothing was queued.
 */
export class IdempotencyConflictError extends Error {
  readonly code = "ERR_IDEMPOTENCY_CONFLICT";
  override readonly name = "IdempotencyConflictError";
}

/**
 * Thrown by `enqueue` when the caller's `webhookId` already belongs to another message: receivers
 * de-duplicate by that id, so a second message under it would be dropped by them. Nothing was queued.
 */
export class WebhookIdTakenError extends Error {
  readonly code = "ERR_WEBHOOK_ID_TAKEN";
  override readonly name = "WebhookIdTakenError";
}

/**
 * Thrown when an endpoint or a message names a subscriber that does not exist: checked before anything
 * is written, so an endpoint is never left owned by nobody and a message never addressed to nobody.
 */
export class SubscriberNotFoundError extends Error {
  readonly code = "ERR_SUBSCRIBER_NOT_FOUND";
  override readonly name = "SubscriberNotFoundError";
}

// --- Thrown by the endpoint and subscriber operations of an outbox.

/** Thrown before anything is written when an endpoint's URL, token or secrets cannot be stored as given. */
export class InvalidEndpointError extends Error {
  readonly code = "ERR_INVALID_ENDPOINT";
  override readonly name: string = "InvalidEndpointError";
}

/** Where in a filter its problem is: 0-based `offset`, 1-based `line` and `column`. */
export interface FilterPosition {
  offset: number;
  line: number;
  column: number;
}

/**
 * An endpoint's filter refused when it is set: not CEL, a function or variable it does not have, a
 * loop whose cost the sender cannot bound, or too long. `position` says where, when it is one place.
 */
export class InvalidEndpointFilterError extends InvalidEndpointError {
  override readonly name: string = "InvalidEndpointFilterError";
  readonly position: FilterPosition | undefined;
  constructor(message: string, position?: FilterPosition) {
    super(position ? `filter: ${message} (at ${position.line}:${position.column})` : `filter: ${message}`);
    this.position = position;
  }
}

/** Thrown when a store operation names an endpoint that does not exist. */
export class EndpointNotFoundError extends Error {
  readonly code = "ERR_ENDPOINT_NOT_FOUND";
  override readonly name = "EndpointNotFoundError";
}

/** Thrown before anything is written when a subscriber's name cannot be stored as given. */
export class InvalidSubscriberError extends Error {
  readonly code = "ERR_INVALID_SUBSCRIBER";
  override readonly name = "InvalidSubscriberError";
}

/** Thrown when an endpoint would sign with more than `MAX_ENDPOINT_SECRETS` secrets: drop old ones first. */
export class TooManySecretsError extends Error {
  readonly code = "ERR_TOO_MANY_SECRETS";
  override readonly name = "TooManySecretsError";
}

// --- Thrown by an outbox's connection and storage: SQLite's shared handle, secrets at rest.

/**
 * Thrown when the outbox cannot write now because its SQLite connection is inside a transaction of the
 * caller's (the handle is shared): the worker retries, and nothing it records can be rolled back with
 * the caller's work.
 */
export class OutboxBusyError extends Error {
  readonly code = "ERR_OUTBOX_BUSY";
  override readonly name = "OutboxBusyError";
}

/**
 * Thrown at once (not as a rejected promise) when an asynchronous outbox call is made while the caller's
 * better-sqlite3 transaction is open on the shared handle: a `db.transaction(...)` function cannot await,
 * so the call would resolve after the transaction ended, or write into it and be rolled back after it
 * had answered. Inside the transaction, `enqueueSync` is the one to call.
 */
export class OutboxInTransactionError extends Error {
  readonly code = "ERR_OUTBOX_IN_TRANSACTION";
  override readonly name = "OutboxInTransactionError";
}

/**
 * Thrown before anything is written when an outbox opened without a `secretsCipher` would store a
 * token or secret in plain text beside values that are encrypted: the store was set up with a key,
 * so every write must be made with it.
 */
export class EncryptionKeyRequiredError extends Error {
  readonly code = "ERR_ENCRYPTION_KEY_REQUIRED";
  override readonly name = "EncryptionKeyRequiredError";
}

/** An encryption key that is not 32 bytes, or no key at all. The message never repeats a key. */
export class InvalidEncryptionKeyError extends Error {
  readonly code = "ERR_INVALID_ENCRYPTION_KEY";
  override readonly name = "InvalidEncryptionKeyError";
}

/**
 * A stored token or signing secret could not be decrypted: it was encrypted under a key the store was not
 * given, the key is wrong, or the value was altered. The message names the key id, never a key or a value.
 */
export class SecretsDecryptionError extends Error {
  readonly code = "ERR_SECRETS_DECRYPTION";
  override readonly name = "SecretsDecryptionError";
}

// --- Thrown by the factories when an option is out of range, at once.

/** Thrown by `createRetryPolicy` for an option it cannot decide by. */
export class InvalidRetryPolicyError extends Error {
  readonly code = "ERR_INVALID_RETRY_POLICY";
  override readonly name = "InvalidRetryPolicyError";
}

/** Thrown by `createWorker` when `retention` holds a value it cannot sweep by (zero, negative, not a number). */
export class InvalidRetentionError extends RangeError {
  readonly code = "ERR_INVALID_RETENTION";
  override readonly name = "InvalidRetentionError";
}

/**
 * Thrown by `createWorker` when a count it was given (`claimAhead`) is not a whole number, 0 or more, and by
 * `createBatcher` for `turns` that are not a whole number, 1 or more.
 */
export class InvalidWorkerOptionError extends RangeError {
  readonly code = "ERR_INVALID_WORKER_OPTION";
  override readonly name = "InvalidWorkerOptionError";
}

// --- Raised on the delivery path (the attempt fails and is retried like a network error, or the client was used too early).

/** Thrown when a delivery target resolves to an address the SSRF guard refuses. */
export class SsrfBlockedError extends Error {
  readonly code = "ERR_SSRF_BLOCKED";
  override readonly name = "SsrfBlockedError";
}

/** A delivery target's name did not resolve within the attempt's time: a failed attempt, retried like any network error. */
export class DnsTimeoutError extends Error {
  readonly code = "ERR_DNS_TIMEOUT";
  override readonly name = "DnsTimeoutError";
}

/**
 * `DeliveryClient.got` was read before got was loaded: got is imported on the first delivery (or by
 * `client.load()`), so that code which only enqueues never pays for loading it.
 */
export class DeliveryClientNotLoadedError extends Error {
  readonly code = "ERR_DELIVERY_CLIENT_NOT_LOADED";
  override readonly name = "DeliveryClientNotLoadedError";
}

// --- Thrown by `listEvents`.

/** A cursor `listEvents` never answered (not a cursor at all): nothing was read. */
export class InvalidCursorError extends Error {
  readonly code = "ERR_INVALID_CURSOR";
  override readonly name = "InvalidCursorError";
}

/**
 * The cursor is older than what retention kept: events after it were deleted, so a listing from it would
 * skip them silently. `oldestCursor` is the oldest cursor still served (an HTTP API answers 410 with it).
 */
export class EventsExpiredError extends Error {
  readonly code = "ERR_EVENTS_EXPIRED";
  override readonly name = "EventsExpiredError";
  constructor(
    message: string,
    readonly oldestCursor: string,
  ) {
    super(message);
  }
}

// --- Internal: never leaves the package.

/** A row a record read without locks changed before its write: the record runs again under locks. */
export class StaleReadError extends Error {
  readonly code = "ERR_STALE_READ";
  override readonly name = "StaleReadError";
}

/**
 * The filter set an enqueue evaluated (a process's cached copy) is no longer the stored one: its insert
 * wrote nothing, and the enqueue reads the set again.
 */
export class StaleFilterSetError extends Error {
  readonly code = "ERR_STALE_FILTER_SET";
  override readonly name = "StaleFilterSetError";
}
