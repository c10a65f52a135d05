export type { OperationalEvent, OperationalEventType } from "@plant-store/types";
export { OPERATIONAL_EVENT_TYPES } from "@plant-store/types";
export type { AttemptEvent } from "./attempt-event.js";
export type { AttemptResult } from "./attempt-result.js";
export {
  createDeliveryClient,
  DEFAULT_MAX_RESPONSE_BYTES,
  type DeliveryClient,
  type DeliveryClientOptions,
} from "./delivery/create-delivery-client.js";
export {
  createSsrfGuard,
  type ResolvedTarget,
  type SsrfCheckOptions,
  type SsrfGuard,
  type SsrfGuardOptions,
  type SsrfTargetEndpoint,
} from "./delivery/create-ssrf-guard.js";
export {
  type DeliveryHeaders,
  type SignDeliveryInput,
  type SvixDeliveryHeaders,
  signDelivery,
} from "./delivery/sign-delivery.js";
export {
  type EndpointVerification,
  type VerifiableEndpoint,
  type VerificationFailureReason,
  type VerifyEndpointOptions,
  verifyEndpoint,
} from "./delivery/verify-endpoint.js";
export {
  DeliveryClientNotLoadedError,
  DnsTimeoutError,
  EncryptionKeyRequiredError,
  EndpointNotFoundError,
  EventsExpiredError,
  type FilterPosition,
  IdempotencyConflictError,
  InvalidCursorError,
  InvalidEncryptionKeyError,
  InvalidEndpointError,
  InvalidEndpointFilterError,
  InvalidMessageError,
  InvalidPayloadError,
  InvalidRetentionError,
  InvalidRetryPolicyError,
  InvalidSubscriberError,
  InvalidWorkerOptionError,
  OutboxBusyError,
  OutboxInTransactionError,
  type PayloadIssue,
  SecretsDecryptionError,
  SsrfBlockedError,
  SubscriberNotFoundError,
  TooManySecretsError,
  WebhookIdTakenError,
} from "./errors.js";
export {
  type CompiledFilter,
  compileEndpointFilter,
  type FilterInput,
  toFilterInput,
} from "./filter/compile-endpoint-filter.js";
export { newWebhookId } from "./new-webhook-id.js";
export type { AttemptMinute, AttemptTimeline, EndpointLatency } from "./outbox.js";
export {
  type AddEndpointInput,
  type AddedSubscriber,
  type AddSubscriberInput,
  type AlertRecord,
  type AttemptOutcome,
  type AttemptRecord,
  type AttemptReport,
  type ClaimedDelivery,
  type ClaimRequest,
  DELIVERY_STATUSES,
  type DeliveryRecord,
  type DeliveryStatus,
  type Endpoint,
  type EndpointAttemptStats,
  type EndpointChanges,
  type EndpointCounts,
  type EndpointEvent,
  type EndpointStatus,
  type EnqueueResult,
  type EnsuredEndpoint,
  type EventMap,
  type EventPage,
  type ExcludedMessage,
  type ExcludedPage,
  type ListDeliveriesOptions,
  type ListEventsOptions,
  type ListExcludedOptions,
  MAX_ENDPOINT_SECRETS,
  MAX_EVENTS_PAGE,
  MAX_RATE_LIMIT,
  type MessageInput,
  type MessageRecord,
  OUTBOX_NOTIFY_CHANNEL,
  type Outbox,
  type RecordedAttempt,
  type RecordOptions,
  type RecordResult,
  type RotatedSecret,
  type Subscriber,
  type SubscriberScope,
  type SweepOptions,
  type SweepResult,
  type TypedMessage,
  type UntypedMessage,
} from "./outbox.js";
export { MAX_IDEMPOTENCY_KEY_LENGTH } from "./queue/prepare-message.js";
export { SUBSCRIBER_TOKEN_PREFIX } from "./queue/subscriber-token.js";
export {
  createRetryPolicy,
  DEFAULT_DISABLE_AFTER_MS,
  DEFAULT_MAX_RETRY_AFTER_MS,
  type RetryPolicyOptions,
} from "./retry/create-retry-policy.js";
export { createRetrySchedule, DEFAULT_RETRY_SCHEDULE } from "./retry/create-retry-schedule.js";
export type { RetryDecision, RetryDecisionInput, RetryPolicy } from "./retry-policy.js";
export {
  type AesGcmCipherOptions,
  createAesGcmCipher,
  ENCRYPTED_PREFIX,
  encryptionKeyId,
} from "./secrets/create-aes-gcm-cipher.js";
export type { SecretsCipher } from "./secrets-cipher.js";
export type { SenderLogger } from "./sender-logger.js";
export {
  type Batcher,
  type BatcherOptions,
  type BatchOutcome,
  createBatcher,
} from "./worker/create-batcher.js";
export {
  DEFAULT_RETENTION_MS,
  DEFAULT_SWEEP_BATCH_SIZE,
  type RetentionOptions,
  type SweepEvent,
} from "./worker/create-retention-sweeper.js";
export { createWorker, type Worker, type WorkerOptions, type WorkerOutbox } from "./worker/create-worker.js";
