// `@plant-store/receiver/fetch`: the fetch handler and what it needs, with no Node built-in (and no
// Koa) on the import path, for Workers, Deno, Bun, Next.js and Hono.
export { checkContentType } from "./check-content-type.js";
export {
  type CatchUp,
  type CatchUpEvent,
  type CatchUpOptions,
  type CatchUpRunResult,
  type CatchUpState,
  type CatchUpStatus,
  createCatchUp,
} from "./create-catch-up.js";
export type { PlantWebhookOutcome, ReceiverOptions } from "./create-delivery-handler.js";
export {
  createFetchHandler,
  type FetchAdapterOptions,
  type FetchHandlerOptions,
} from "./create-fetch-handler.js";
export { createMemoryCursorStore } from "./create-memory-cursor-store.js";
export {
  createMemoryDedupStore,
  type MemoryDedupStoreOptions,
} from "./create-memory-dedup-store.js";
export { createOnceRunner, type OnceOutcome, type OnceRunnerOptions } from "./create-once-runner.js";
export type { VerifierOptions } from "./create-verification-steps.js";
export {
  createWebhookReceiver,
  type EventTypeOf,
  type SharedReceiverOptions,
  type WebhookContext,
  type WebhookHandler,
  type WebhookHandlers,
  type WebhookReceiver,
  type WebhookReceiverOptions,
  type WebhookRoute,
} from "./create-webhook-receiver.js";
export type { CursorStore } from "./cursor-store.js";
export {
  type ClaimResult,
  DEFAULT_DEDUP_LEASE_MS,
  DEFAULT_DEDUP_TTL_MS,
  type DedupStore,
  type DedupStoreOptions,
} from "./dedup-store.js";
export { BodyAlreadyConsumedError } from "./errors/body-already-consumed-error.js";
export { CatchUpHandlerError } from "./errors/catch-up-handler-error.js";
export { CatchUpRequestError } from "./errors/catch-up-request-error.js";
export { DedupStoreFullError } from "./errors/dedup-store-full-error.js";
export { DeliveryInProgressError } from "./errors/delivery-in-progress-error.js";
export { HandlerFailedError } from "./errors/handler-failed-error.js";
export { InternalReceiverError } from "./errors/internal-receiver-error.js";
export { InvalidJsonError } from "./errors/invalid-json-error.js";
export { InvalidPayloadError } from "./errors/invalid-payload-error.js";
export { InvalidReceiverOptionsError } from "./errors/invalid-receiver-options-error.js";
export { InvalidSignatureError } from "./errors/invalid-signature-error.js";
export { InvalidTokenError } from "./errors/invalid-token-error.js";
export { InvalidWebhookHeadersError } from "./errors/invalid-webhook-headers-error.js";
export { MethodNotAllowedError } from "./errors/method-not-allowed-error.js";
export { BEARER_CHALLENGE, MissingTokenError } from "./errors/missing-token-error.js";
export { PayloadTooLargeError } from "./errors/payload-too-large-error.js";
export { RequestAbortedError } from "./errors/request-aborted-error.js";
export { RequestTimeoutError } from "./errors/request-timeout-error.js";
export { TimestampOutOfToleranceError } from "./errors/timestamp-out-of-tolerance-error.js";
export { UnhandledWebhookEventError } from "./errors/unhandled-webhook-event-error.js";
export { UnknownWebhookEventError } from "./errors/unknown-webhook-event-error.js";
export { UnsupportedMediaTypeError } from "./errors/unsupported-media-type-error.js";
export type { IncomingHeaders } from "./header-value.js";
export type { ReceiverLogger } from "./receiver-logger.js";
export { WebhookError } from "./webhook-error.js";
