import type {
  AttemptRecord,
  DeliveryRecord,
  Endpoint,
  EndpointVerification,
  Subscriber,
} from "@plant-store/sender";
import { VERIFICATION_TIMEOUT_MS } from "@plant-store/types";

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/**
 * What a static header's value is shown as: always the same, so neither the value nor its length is
 * told. The values are secrets (a gateway's API key), set and replaced but never read back.
 */
export const MASKED_HEADER_VALUE = "********";

/**
 * An endpoint without its token and secrets, which are never shown again after they are set, and with its
 * static headers' names only (each value masked).
 */
export function presentEndpoint(endpoint: Endpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    status: endpoint.status,
    /** Deliveries a second at most, across every worker; null: no limit. */
    rateLimit: endpoint.rateLimit,
    disabledReason: endpoint.disabledReason,
    failingSince: iso(endpoint.failingSince),
    secretCount: endpoint.secrets.length,
    /** The event types it receives (a trailing `*` matches a prefix); null: every one. */
    eventTypes: endpoint.eventTypes,
    /** `standard` (`webhook-*`) or `svix` (`svix-*`): the names its signature headers go under. */
    signatureHeaders: endpoint.signatureHeaders,
    headers: Object.fromEntries(Object.keys(endpoint.headers).map((name) => [name, MASKED_HEADER_VALUE])),
    /** Its CEL filter; null: none. */
    filter: endpoint.filter,
    /** How many messages its filter has excluded. */
    filteredCount: endpoint.filteredCount,
    createdAt: iso(endpoint.createdAt),
    /** Null: the operator's; a subscriber's endpoint is sent nothing until `verified`. */
    subscriberId: endpoint.subscriberId,
    verified: endpoint.verified,
    verifiedAt: iso(endpoint.verifiedAt),
  };
}

/** A delivery of one message to one endpoint, as the API shows it. */
export function presentDelivery(delivery: DeliveryRecord) {
  return {
    id: delivery.id,
    endpointId: delivery.endpointId,
    webhookId: delivery.webhookId,
    /** Null for a message queued before messages had a type. */
    eventType: delivery.eventType,
    /** Deliveries with one key reach their endpoint in queue order, one at a time; null: any order. */
    orderingKey: delivery.orderingKey,
    status: delivery.status,
    attempts: delivery.attemptCount,
    nextAttemptAt: iso(delivery.nextAttemptAt),
    lastStatus: delivery.lastStatus,
    lastError: delivery.lastError,
    createdAt: iso(delivery.createdAt),
    updatedAt: iso(delivery.updatedAt),
  };
}

export function presentAttempt(attempt: AttemptRecord) {
  return {
    attempt: attempt.attempt,
    startedAt: iso(attempt.startedAt),
    durationMs: attempt.durationMs,
    status: attempt.status,
    error: attempt.error,
    outcome: attempt.outcome,
    responseBody: attempt.responseBody,
    workerId: attempt.workerId,
  };
}

/** Who an answer is for: the operator sees every detail, a subscriber (a stranger) coarse reasons only. */
export type Audience = "operator" | "subscriber";

/**
 * What a handshake found, as the admin API shows it: the request's id, the answer's status. To a
 * subscriber, only what says what to fix, never what the store saw of a foreign host: no status, no
 * error code, no resolved address, and one reason for every way a URL failed to answer (refused,
 * reset, timed out, redirected, another status or a wrong body alike). Otherwise its "verify again"
 * told open, closed, black-holed and redirecting targets apart from the store's address: a port
 * scanner. The operator's answers and the log line keep the details.
 */
export function presentVerification(verification: EndpointVerification, audience: Audience = "operator") {
  if (verification.verified)
    return { verified: true as const, webhookId: verification.webhookId, status: verification.status };
  const { reason, webhookId } = verification;
  if (audience === "subscriber" && !SUBSCRIBER_REASONS.has(reason))
    return reason === "refused-target"
      ? {
          verified: false as const,
          reason,
          message:
            "Not sent: the store does not send to this URL (its host does not resolve, or not to a public address)",
          webhookId,
        }
      : {
          verified: false as const,
          reason: "no-valid-answer" as const,
          message: `The URL did not answer the handshake as the contract says within ${VERIFICATION_TIMEOUT_MS / 1000} s: 200 with the challenge and a response proving the endpoint's signing secret`,
          webhookId,
        };
  return {
    verified: false as const,
    reason,
    message: verification.message,
    webhookId,
    ...(verification.status === undefined ? {} : { status: verification.status }),
  };
}

/** Reasons that say nothing of a foreign host, shown to a subscriber as they are. */
const SUBSCRIBER_REASONS: ReadonlySet<string> = new Set(["no-secret", "url-changed"]);

/** A handshake the store did not send: the endpoint's or its owner's handshakes are used up for now. */
export function presentThrottledVerification(message: string) {
  return { verified: false as const, reason: "throttled" as const, message };
}

/** A subscriber as the admin API and `--json` show it: never its token, which only its creation answers. */
export function presentSubscriber(subscriber: Subscriber) {
  return { id: subscriber.id, name: subscriber.name, createdAt: subscriber.createdAt.toISOString() };
}
