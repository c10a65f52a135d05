export type { AttemptEvent } from "./attempt-event.js";
export type { AttemptResult } from "./attempt-result.js";
export {
  type AesGcmCipherOptions,
  createAesGcmCipher,
  ENCRYPTED_PREFIX,
  encryptionKeyId,
} from "./create-aes-gcm-cipher.js";
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
export { createWorker, type Worker, type WorkerOptions } from "./create-worker.js";
export {
  type AttemptDecision,
  type DecideAttemptClock,
  type DeliveryChange,
  type DeliveryState,
  decideAttempt,
  type EndpointChange,
  type EndpointState,
} from "./decide-attempt.js";
export { type DeliveryMessage, deliver } from "./deliver.js";
export { DeliveryClientNotLoadedError } from "./delivery-client-not-loaded-error.js";
export { DnsTimeoutError } from "./dns-timeout-error.js";
export { formatDuration } from "./format-duration.js";
export { InvalidEncryptionKeyError } from "./invalid-encryption-key-error.js";
export { InvalidMessageError } from "./invalid-message-error.js";
export { InvalidRetentionError } from "./invalid-retention-error.js";
export { isPublicAddress } from "./is-public-address.js";
export { newWebhookId } from "./new-webhook-id.js";
export {
  type AddEndpointInput,
  type AttemptOutcome,
  type AttemptRecord,
  type ClaimedDelivery,
  type ClaimOptions,
  type ClaimRequest,
  DELIVERY_STATUSES,
  type DeliveryRecord,
  type DeliveryStatus,
  type Endpoint,
  type EndpointAttemptStats,
  type EndpointStatus,
  type EnqueueResult,
  type ListDeliveriesOptions,
  type MessageInput,
  type MessageRecord,
  OUTBOX_NOTIFY_CHANNEL,
  type Outbox,
  type RecordAndClaimResult,
  type RecordAttemptInput,
  type RecordedAttempt,
  type SweepOptions,
  type SweepResult,
} from "./outbox.js";
export { OutboxBusyError } from "./outbox-busy-error.js";
export { EndpointNotFoundError } from "./outbox-errors.js";
export { InvalidDurationError, parseDuration } from "./parse-duration.js";
export { parseRetryAfter } from "./parse-retry-after.js";
export { MAX_IDEMPOTENCY_KEY_LENGTH } from "./prepare-message.js";
export type { SecretsCipher } from "./secrets-cipher.js";
export { SecretsDecryptionError } from "./secrets-decryption-error.js";
export type { SenderLogger } from "./sender-logger.js";
export { type DeliveryHeaders, type SignDeliveryInput, signDelivery } from "./sign-delivery.js";
export { SsrfBlockedError } from "./ssrf-blocked-error.js";
export { WebhookIdTakenError } from "./webhook-id-taken-error.js";
