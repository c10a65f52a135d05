export { type Ack, AckSchema } from "./ack.js";
export { BEARER_TOKEN_PATTERN, BearerTokenSchema } from "./bearer-token.js";
export type {
  AnswerVerificationInput,
  CheckVerificationResponseInput,
  SignedWebhook,
  SignWebhookInput,
  VerificationChallengeInput,
  WebhookKeyInput,
  WebhookMessage,
  WebhookSignatureHeaders,
  WebhookVerifierOptions,
} from "./create-signing-core.js";
export { type Delivery, DeliverySchema, NEW_PLANT_EVENT, type PlantStoreEvents } from "./delivery.js";
export {
  EndpointFilterSchema,
  EndpointHeadersSchema,
  MAX_ENDPOINT_FILTER_LENGTH,
  MAX_ENDPOINT_HEADER_NAME_LENGTH,
  MAX_ENDPOINT_HEADER_VALUE_LENGTH,
  MAX_ENDPOINT_HEADERS,
  refusedHeaderName,
  SignatureHeaderStyleSchema,
} from "./endpoint-options-schema.js";
export { equalAt } from "./equal-at.js";
export { type ErrorBody, ErrorBodySchema } from "./error-body.js";
export {
  type EventPage,
  EventPageSchema,
  type EventsExpired,
  EventsExpiredSchema,
  type PulledEvent,
  PulledEventHeadersSchema,
  PulledEventSchema,
} from "./event-page.js";
export { formatDuration } from "./format-duration.js";
export { InvalidSignInputError } from "./invalid-sign-input-error.js";
export { InvalidTraceparentError } from "./invalid-traceparent-error.js";
export {
  DELIVERY_TIMEOUT_MS,
  MAX_BODY_BYTES,
  MAX_PLANT_NAME_LENGTH,
  MAX_PLANT_TAG_LENGTH,
  MAX_SIGNATURE_HEADER_LENGTH,
  MAX_VERIFICATION_CHALLENGE_LENGTH,
  MAX_WEBHOOK_ID_LENGTH,
  MIN_SECRET_BYTES,
  MIN_VERIFICATION_CHALLENGE_LENGTH,
  TIMESTAMP_TOLERANCE_SECONDS,
  VERIFICATION_TIMEOUT_MS,
} from "./limits.js";
export { type NewPlant, NewPlantSchema } from "./new-plant.js";
export {
  type DeliveryFailed,
  DeliveryFailedSchema,
  type EndpointDisabled,
  EndpointDisabledSchema,
  type EndpointFailing,
  EndpointFailingSchema,
  type EndpointRecovered,
  EndpointRecoveredSchema,
  isOperationalEventType,
  OPERATIONAL_EVENT_TYPES,
  OPERATIONAL_WEBHOOK_DEFINITIONS,
  OPERATIONAL_WEBHOOKS,
  type OperationalEvent,
  type OperationalEvents,
  type OperationalEventType,
} from "./operational-webhooks.js";
export { InvalidDurationError, parseDuration } from "./parse-duration.js";
export { type Plant, PlantSchema } from "./plant.js";
export { PLANT_STORE_WEBHOOKS } from "./plant-store-webhooks.js";
export {
  formatTraceparent,
  parseTraceparent,
  TRACEPARENT_HEADER,
  type Traceparent,
} from "./traceparent.js";
export { UnknownEventTypeError } from "./unknown-event-type-error.js";
export { UnsupportedSchemaError } from "./unsupported-schema-error.js";
export {
  createWebhookCatalog,
  defineWebhookCatalog,
  describeWebhooks,
  type TypedWebhookDocument,
  type WebhookCatalog,
  type WebhookDefinition,
  type WebhookDescription,
  type WebhookDocument,
} from "./webhook-catalog.js";
export type { SignedBody } from "./webhook-crypto.js";
export { webhookHeaderChecks } from "./webhook-header-checks.js";
export {
  SIGNATURE_HEADER_NAMES,
  SIGNATURE_HEADER_STYLES,
  type SignatureHeaderStyle,
  SVIX_ID_HEADER,
  SVIX_SIGNATURE_HEADER,
  SVIX_TIMESTAMP_HEADER,
  WEBHOOK_EVENT_TYPE_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  type WebhookHeaders,
  WebhookHeadersSchema,
  WebhookIdSchema,
  WebhookSignatureSchema,
  WebhookTimestampSchema,
} from "./webhook-headers.js";
export { parseWebhookKey, type WebhookKey } from "./webhook-key.js";
export { SUPPORTED_SCHEMA_KEYWORDS } from "./webhook-schema.js";
export { generateWebhookSecret, InvalidWebhookSecretError, parseWebhookSecret } from "./webhook-secret.js";
export { WebhookSecretSchema } from "./webhook-secret-schema.js";
export {
  VerificationChallengeSchema,
  VerificationResponseSchema,
  WEBHOOK_VERIFICATION_TYPE,
  type WebhookVerification,
  type WebhookVerificationAnswer,
  WebhookVerificationAnswerSchema,
  WebhookVerificationSchema,
} from "./webhook-verification.js";
export { WebhookVerificationError, type WebhookVerificationFailure } from "./webhook-verification-error.js";
