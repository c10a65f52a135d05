export type { OperationalEvent, OperationalEventType } from "@plant-store/types";
export { OPERATIONAL_EVENT_TYPES } from "@plant-store/types";
export type { AttemptEvent } from "./attempt-event.js";
export type { AttemptResult } from "./attempt-result.js";
export type { AttemptMinute, AttemptTimeline, EndpointLatency } from "./attempt-timeline.js";
export {
  type AesGcmCipherOptions,
  createAesGcmCipher,
  ENCRYPTED_PREFIX,
  encryptionKeyId,
} from "./create-aes-gcm-cipher.js";
export {
  type Batcher,
  type BatcherOptions,
  type BatchOutcome,
  createBatcher,
} from "./create-batcher.js";
export {
  createDeliveryClient,
  DEFAULT_MAX_RESPONSE_BYTES,
  type DeliveryClient,
  type DeliveryClientOptions,
} from "./create-delivery-client.js";
export {
  DEFAULT_RETENTION_MS,
  DEFAULT_SWEEP_BATCH_SIZE,
  type RetentionOptions,
  type SweepEvent,
} from "./create-retention-sweeper.js";
export {
  createRetryPolicy,
  DEFAULT_DISABLE_AFTER_MS,
  DEFAULT_MAX_RETRY_AFTER_MS,
  type RetryDecision,
  type RetryDecisionInput,
  type RetryPolicy,
  type RetryPolicyOptions,
} from "./create-retry-policy.js";
export { createRetrySchedule, DEFAULT_RETRY_SCHEDULE } from "./create-retry-schedule.js";
export {
  createSsrfGuard,
  type ResolvedTarget,
  type SsrfCheckOptions,
  type SsrfGuard,
  type SsrfGuardOptions,
} from "./create-ssrf-guard.js";
export { createWorker, type Worker, type WorkerOptions, type WorkerOutbox } from "./create-worker.js";
export { DeliveryClientNotLoadedError } from "./delivery-client-not-loaded-error.js";
export { DnsTimeoutError } from "./dns-timeout-error.js";
export { EncryptionKeyRequiredError } from "./encryption-key-required-error.js";
export { IdempotencyConflictError } from "./idempotency-conflict-error.js";
export { InvalidEncryptionKeyError } from "./invalid-encryption-key-error.js";
export { InvalidEndpointError } from "./invalid-endpoint-error.js";
export { InvalidMessageError } from "./invalid-message-error.js";
export { InvalidPayloadError, type PayloadIssue } from "./invalid-payload-error.js";
export { InvalidRetentionError } from "./invalid-retention-error.js";
export { InvalidRetryPolicyError } from "./invalid-retry-policy-error.js";
export { InvalidSubscriberError } from "./invalid-subscriber-error.js";
export { InvalidWorkerOptionError } from "./invalid-worker-option-error.js";
export { newWebhookId } from "./new-webhook-id.js";
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
  type EndpointStatus,
  type EnqueueResult,
  type EnsuredEndpoint,
  type EventMap,
  type ListDeliveriesOptions,
  MAX_ENDPOINT_SECRETS,
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
export { OutboxBusyError } from "./outbox-busy-error.js";
export { EndpointNotFoundError } from "./outbox-errors.js";
export { OutboxInTransactionError } from "./outbox-in-transaction-error.js";
export { MAX_IDEMPOTENCY_KEY_LENGTH } from "./prepare-message.js";
export type { SecretsCipher } from "./secrets-cipher.js";
export { SecretsDecryptionError } from "./secrets-decryption-error.js";
export type { SenderLogger } from "./sender-logger.js";
export { type DeliveryHeaders, type SignDeliveryInput, signDelivery } from "./sign-delivery.js";
export { SsrfBlockedError } from "./ssrf-blocked-error.js";
export { SubscriberNotFoundError } from "./subscriber-not-found-error.js";
export { SUBSCRIBER_TOKEN_PREFIX } from "./subscriber-token.js";
export { TooManySecretsError } from "./too-many-secrets-error.js";
export {
  type EndpointVerification,
  type VerifiableEndpoint,
  type VerificationFailureReason,
  type VerifyEndpointOptions,
  verifyEndpoint,
} from "./verify-endpoint.js";
export { WebhookIdTakenError } from "./webhook-id-taken-error.js";
