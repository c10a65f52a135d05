export type { Principal } from "./access/principal.js";
export type { Access, MountableRoute, RouteDeclaration } from "./access/route-declaration.js";
export type { FetchConnectionInfo, FetchHandler } from "./adapters/create-fetch-handler.js";
export type { NodeHandler } from "./adapters/create-node-handler.js";
export {
  type ApiRoute,
  type AuthenticatedAs,
  createWebhookApi,
  type WebhookApi,
  type WebhookApiOptions,
} from "./create-webhook-api.js";
export {
  createHandshakeThrottle,
  HANDSHAKE_LIMITS,
  type HandshakeThrottle,
} from "./endpoints/create-handshake-throttle.js";
export {
  type EndpointCaps,
  OPERATOR_ENDPOINT_CAPS,
  SUBSCRIBER_ENDPOINT_CAPS,
} from "./endpoints/endpoint-caps.js";
export { MAX_ENDPOINTS } from "./endpoints/max-endpoints.js";
export { InvalidApiOptionsError, invalidInput, notFound, WebhookApiError } from "./errors.js";
export {
  AddSubscriberInputSchema,
  type EndpointInputs,
  EndpointTokenSchema,
  EndpointUrlSchema,
  endpointInputs,
  IdempotencyKeySchema,
  IdSchema,
  PortalLinkInputSchema,
  RateLimitSchema,
  ReplayInputSchema,
  SendMessageInputSchema,
} from "./inputs/api-inputs.js";
export { formatZodError } from "./inputs/format-zod-error.js";
export { BODY, parseInput } from "./inputs/parse-input.js";
export { readJsonBody } from "./inputs/read-json-body.js";
export { isRelayShaped } from "./listen/create-listen-relay.js";
export {
  type DeliveryStats,
  deliveryStatsWindow,
  presentDeliveryStats,
} from "./monitoring/delivery-stats.js";
export { createMemoryPortalCredentials } from "./portal/create-memory-portal-credentials.js";
export {
  createPortalAccess,
  PORTAL_LINK_PREFIX,
  PORTAL_SESSION_PREFIX,
  type PortalAccess,
} from "./portal/create-portal-access.js";
export { createSqlitePortalCredentials } from "./portal/create-sqlite-portal-credentials.js";
export type { PortalCredentialRows } from "./portal/portal-credential-rows.js";
export {
  presentAttempt,
  presentDelivery,
  presentEndpoint,
  presentSubscriber,
  presentVerification,
} from "./present.js";
export { requestKey } from "./routes/message-routes.js";
