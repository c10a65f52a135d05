import {
  DELIVERY_TIMEOUT_MS,
  type Delivery,
  TIMESTAMP_TOLERANCE_SECONDS,
  WEBHOOK_EVENT_TYPE_HEADER,
  type WebhookCatalog,
  type WebhookDefinition,
} from "@plant-store/types";
import { createVerificationAnswerer } from "./answer-verification.js";
import { checkPayload } from "./check-payload.js";
import { createMemoryDedupStore } from "./create-memory-dedup-store.js";
import { createOnceRunner, type OnceOutcome } from "./create-once-runner.js";
import { createReceiveSpans, type ReceiveSpans } from "./create-receive-spans.js";
import {
  createVerificationSteps,
  type VerifiedBody,
  type VerifierOptions,
} from "./create-verification-steps.js";
import type { DedupStore } from "./dedup-store.js";
import { InternalReceiverError } from "./errors/internal-receiver-error.js";
import { InvalidReceiverOptionsError } from "./errors/invalid-receiver-options-error.js";
import { MethodNotAllowedError } from "./errors/method-not-allowed-error.js";
import { PayloadTooLargeError } from "./errors/payload-too-large-error.js";
import { UnhandledWebhookEventError } from "./errors/unhandled-webhook-event-error.js";
import { UnknownWebhookEventError } from "./errors/unknown-webhook-event-error.js";
import { headerValue, type IncomingHeaders } from "./header-value.js";
import type { Maybe } from "./maybe.js";
import { HANDLE_PULLED, type PulledDelivery } from "./pulled-delivery.js";
import { type ReceivedTraceparent, readTraceparent } from "./read-traceparent.js";
import type { ReceiverLogger } from "./receiver-logger.js";
import { WebhookError } from "./webhook-error.js";

/** The options every receiver takes, whichever webhooks it dispatches. */
export interface SharedReceiverOptions extends VerifierOptions {
  /**
   * Where handled webhook ids are remembered. Default: in memory (one process only), keeping every id
   * for at least twice `toleranceSeconds` (while it could be replayed) even when full.
   */
  dedupStore?: DedupStore;
  logger?: ReceiverLogger;
  /** Bounded wait for a copy of the same id handled by this or another instance. Default 10 000 ms. */
  maxWaitMs?: number;
  /**
   * Longest time to receive the body once the headers are in; a slower client gets 408 and its
   * connection closed. Default 15 000 ms, the sender's own answer timeout: past it the sender has
   * given up, so waiting longer only ties up a connection.
   */
  bodyTimeoutMs?: number;
}

/** What a handler learns besides the payload: the delivery, and which webhook it is. */
export interface WebhookContext<EventType extends string = string> extends Delivery {
  eventType: EventType;
}

/** Runs once per webhook id. Throwing answers 500, so the sender retries. */
export type WebhookHandler<Payload, EventType extends string = string> = (
  payload: Payload,
  context: WebhookContext<EventType>,
) => void | Promise<void>;

/**
 * The event types of an `Events` map: its named keys. An index signature (`PlantStoreEvents` extends
 * `Record<string, unknown>`) would make every string one and every payload `unknown`, so it is
 * dropped; a catalog typed by no map at all takes any string.
 */
export type EventTypeOf<Events extends Record<string, unknown>> = [NamedKeys<Events>] extends [never]
  ? string
  : NamedKeys<Events>;
type NamedKeys<Events> = keyof {
  [K in keyof Events as string extends K ? never : number extends K ? never : K]: unknown;
} &
  string;

/** A handler per event type of the catalog, typed by its payload. A type left out is answered 501. */
export type WebhookHandlers<Events extends Record<string, unknown>> = {
  [K in EventTypeOf<Events>]?: WebhookHandler<Events[K], K>;
};

export interface WebhookReceiverOptions<Events extends Record<string, unknown>>
  extends Omit<SharedReceiverOptions, "tokens"> {
  /**
   * Accepted bearer tokens (several during rotation). Required when any webhook of the catalog needs a
   * token (`requiresToken`, from its document's `security`; New Plant does); a webhook that needs none
   * is taken without one, and a token presented to it must still be one of these.
   */
  tokens?: readonly string[];
  /** The webhooks received: `createWebhookCatalog(document)`, or `PLANT_STORE_WEBHOOKS`. */
  catalog: WebhookCatalog<Events>;
  handlers: NoInfer<WebhookHandlers<Events>>;
  /** Where a webhook is taken instead of its path in the catalog (the key in the document's `webhooks`). */
  paths?: NoInfer<{ [K in EventTypeOf<Events>]?: string }>;
  /**
   * One more path taking every webhook of the catalog, told apart by the `webhook-event-type` header
   * alone: the URL of a sender's endpoint subscribed to several event types. None by default.
   */
  sharedPath?: string;
}

/** One path the receiver answers, and the webhook a delivery there is when it names none (none: the shared path). */
export interface WebhookRoute {
  readonly path: string;
  readonly eventType: string | undefined;
}

/** What an adapter leaves for metrics and access logs (Koa: `ctx.state.plantWebhook`). */
export interface PlantWebhookOutcome {
  /** `verification`: the store's verification request, answered with its challenge (no handler ran). */
  outcome: "received" | "duplicate" | "rejected" | "failed" | "verification";
  code?: string;
  webhookId?: string;
}

/** One request as an adapter presents it: the only things that differ between runtimes. */
export interface DeliveryRequest {
  method: string;
  /** Every copy of each header, as sent, where the runtime keeps them apart. */
  headers: IncomingHeaders;
  /** Whether the request announced a body (`Content-Length` other than 0, or `Transfer-Encoding`). */
  hasBody: boolean;
  /**
   * The exact bytes of the body, at most `limit` of them, within `timeoutMs`; fails with a
   * `WebhookError` (thrown or rejected).
   */
  readBody(limit: number, timeoutMs: number): Maybe<Uint8Array>;
}

/** What an adapter writes back. */
export interface DeliveryAnswer {
  status: number;
  /** Besides `Content-Type`: e.g. `Allow`, `WWW-Authenticate`. */
  headers: Readonly<Record<string, string>>;
  /** JSON text. */
  body: string;
  /**
   * Refused before its announced body was read: keeping the connection alive would make the server
   * read the whole body (whatever its size) to reach the next request. Closing it stops reading.
   */
  closeConnection: boolean;
  outcome: PlantWebhookOutcome;
}

const RECEIVER: unique symbol = Symbol.for("@plant-store/receiver.webhook-receiver") as never;

/**
 * Every webhook of a catalog behind one receive path, for any adapter (`createNodeMiddleware`,
 * `createFetchHandler`, the Koa router and middleware of `@plant-store/receiver/koa`).
 */
export interface WebhookReceiver<EventType extends string = string> {
  readonly [RECEIVER]: true;
  /** The event types of its catalog. */
  readonly eventTypes: readonly EventType[];
  /** The paths answered, one per webhook of the catalog. */
  readonly routes: readonly WebhookRoute[];
  /**
   * One request arrived at `route`: the answer, at once when no step had to wait (a promise
   * otherwise); never throws or rejects.
   */
  handle(request: DeliveryRequest, route: WebhookRoute): Maybe<DeliveryAnswer>;
  /** An event pulled from the store's events API (`createCatchUp`): the same path, bar the bearer token. */
  readonly [HANDLE_PULLED]: (pulled: PulledDelivery) => Promise<DeliveryAnswer>;
}

/** Whether an adapter was given a receiver (rather than the New Plant options). */
export function isWebhookReceiver(value: unknown): value is WebhookReceiver {
  return (
    typeof value === "object" && value !== null && (value as { [RECEIVER]?: unknown })[RECEIVER] === true
  );
}

export const JSON_TYPE = "application/json; charset=utf-8";
const silent: ReceiverLogger = { info() {}, warn() {}, error() {} };
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const RECEIVED_BODY = JSON.stringify({ received: true, duplicate: false });
const DUPLICATE_BODY = JSON.stringify({ received: true, duplicate: true });

interface Dispatch {
  eventType: string;
  schema: WebhookDefinition["schema"];
  handler: WebhookHandler<unknown> | undefined;
}

function invalid(message: string): InvalidReceiverOptionsError {
  return new InvalidReceiverOptionsError(`Invalid receiver options: ${message}`);
}

/**
 * The receive path, once for every webhook and every adapter: method, bearer token, content type,
 * body (size, deadline), signature and timestamp, JSON, event type, schema, de-duplication, handler.
 * Adapters only read the request and write the answer.
 *
 * The event type is the `webhook-event-type` header when the sender sends one, else the webhook of
 * the path the request arrived at (the contract's convention: a path per webhook; the shared path
 * has none). It is read after the signature, so an unauthenticated caller learns nothing of the
 * catalog: a type the catalog does not know is 400 `ERR_UNKNOWN_EVENT_TYPE`, one without a handler
 * 501 `ERR_UNHANDLED_EVENT_TYPE`.
 * The header is not signed: the payload is checked against that type's schema, and a replay under
 * another type is still the same `webhook-id`, de-duplicated.
 *
 * The store's verification request (`webhook-event-type: webhook.verification`, a signed
 * `{"type":"webhook.verification","challenge":"..."}` body) is answered 200
 * `{"challenge":"...","response":"v1,..."}` (the response proves the receiver's `whsec_` secret) on
 * every path, after the token and the signature and before the catalog: no handler sees it.
 */
export function createWebhookReceiver<Events extends Record<string, unknown>>(
  options: WebhookReceiverOptions<Events>,
): WebhookReceiver<EventTypeOf<Events>> {
  const { catalog } = options;
  // Webhooks whose document asks for no bearer token: the token is then checked once the webhook is known.
  const tokenFree = new Set(
    typeof catalog?.get === "function"
      ? catalog.eventTypes.filter((eventType) => catalog.get(eventType).requiresToken === false)
      : [],
  );
  const needingToken =
    typeof catalog?.get === "function" ? catalog.eventTypes.filter((type) => !tokenFree.has(type)) : [];
  if (tokenFree.size > 0 && needingToken.length > 0 && (options.tokens ?? []).length === 0)
    throw invalid(`tokens: at least one is required (${needingToken[0]} needs a bearer token)`);
  const steps = createVerificationSteps(options, tokenFree.size === 0 ? "always" : "when-presented");
  const answerVerification = createVerificationAnswerer(options.secrets);
  if (typeof catalog !== "object" || catalog === null || typeof catalog.get !== "function")
    throw invalid("catalog: must be a webhook catalog (createWebhookCatalog or PLANT_STORE_WEBHOOKS)");
  const handlers = (options.handlers ?? {}) as Record<string, unknown>;
  const paths = (options.paths ?? {}) as Record<string, unknown>;
  const problems: string[] = [];
  for (const [eventType, handler] of Object.entries(handlers)) {
    if (!catalog.has(eventType)) problems.push(`handlers.${eventType}: not a webhook of the catalog`);
    else if (typeof handler !== "function") problems.push(`handlers.${eventType}: must be a function`);
  }
  if (Object.keys(handlers).length === 0) problems.push("handlers: at least one is required");
  for (const [eventType, path] of Object.entries(paths)) {
    if (!catalog.has(eventType)) problems.push(`paths.${eventType}: not a webhook of the catalog`);
    else if (typeof path !== "string" || !path.startsWith("/"))
      problems.push(`paths.${eventType}: must start with /`);
  }
  const dispatch = new Map<string, Dispatch>();
  const routes: WebhookRoute[] = [];
  const taken = new Map<string, string>();
  for (const eventType of catalog.eventTypes) {
    const definition = catalog.get(eventType);
    dispatch.set(eventType, {
      eventType,
      schema: definition.schema,
      handler: handlers[eventType] as WebhookHandler<unknown> | undefined,
    });
    const path = typeof paths[eventType] === "string" ? (paths[eventType] as string) : definition.path;
    // Paths match in any case (as @koa/router matches them): two that differ only so would be one.
    const other = taken.get(path.toLowerCase());
    if (other !== undefined) problems.push(`paths: ${eventType} and ${other} share the path ${path}`);
    taken.set(path.toLowerCase(), eventType);
    routes.push({ path, eventType });
  }
  const { sharedPath } = options;
  if (sharedPath !== undefined) {
    if (typeof sharedPath !== "string" || !sharedPath.startsWith("/"))
      problems.push("sharedPath: must start with /");
    else if (taken.has(sharedPath.toLowerCase()))
      problems.push(`sharedPath: ${sharedPath} is the path of ${taken.get(sharedPath.toLowerCase())}`);
    else routes.push({ path: sharedPath, eventType: undefined });
  }
  if (problems.length > 0) throw invalid(problems.join("; "));
  const logger = options.logger ?? silent;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DELIVERY_TIMEOUT_MS;
  if (!Number.isInteger(bodyTimeoutMs) || bodyTimeoutMs <= 0) {
    throw invalid("bodyTimeoutMs: must be a positive integer");
  }
  const once = createOnceRunner({
    store:
      options.dedupStore ??
      createMemoryDedupStore({
        minRetentionMs: 2 * (options.toleranceSeconds ?? TIMESTAMP_TOLERANCE_SECONDS) * 1000,
      }),
    // Stryker disable next-line ConditionalExpression: equivalent: the runner takes an undefined maxWaitMs as its default; the spread only satisfies exactOptionalPropertyTypes
    ...(options.maxWaitMs === undefined ? {} : { maxWaitMs: options.maxWaitMs }),
  });

  const refuse = (error: WebhookError, closeConnection: boolean, webhookId?: string): DeliveryAnswer => {
    const fields = {
      status: error.status,
      code: error.code,
      ...(webhookId === undefined ? {} : { webhookId }),
    };
    if (error.status >= 500) {
      logger.error({ ...fields, err: error.cause ?? error }, "plant webhook failed");
    } else {
      logger.warn(fields, "plant webhook rejected");
    }
    return {
      status: error.status,
      headers: error.headers,
      body: JSON.stringify(error.toJSON()),
      closeConnection,
      outcome: {
        outcome: error.status >= 500 ? "failed" : "rejected",
        code: error.code,
        ...(webhookId === undefined ? {} : { webhookId }),
      },
    };
  };

  /** Refuses the request, or fails it (500 for anything that is not a `WebhookError`). */
  const fail = (
    error: unknown,
    spans: ReceiveSpans,
    request: DeliveryRequest,
    bodyUnread: boolean,
    webhookId?: string,
  ): DeliveryAnswer => {
    const refused = error instanceof WebhookError ? error : new InternalReceiverError(error);
    spans.failed(refused);
    return refuse(refused, bodyUnread && request.hasBody, webhookId);
  };

  const answered = (outcome: OnceOutcome, webhookId: string): DeliveryAnswer => {
    const duplicate = outcome === "duplicate";
    // One line per delivery only when asked for: at info level it would be most of the cost.
    logger.debug?.({ webhookId, duplicate }, "plant webhook received");
    return {
      status: 200,
      headers: NO_HEADERS,
      body: duplicate ? DUPLICATE_BODY : RECEIVED_BODY,
      closeConnection: false,
      outcome: { outcome: duplicate ? "duplicate" : "received", webhookId },
    };
  };

  /** The webhook a verified delivery is: the one its header names, else its route's. */
  const resolve = (headers: IncomingHeaders, route: WebhookRoute): Dispatch => {
    const named = headerValue(headers, WEBHOOK_EVENT_TYPE_HEADER);
    if (named === "duplicate") throw new UnknownWebhookEventError(`${WEBHOOK_EVENT_TYPE_HEADER} sent twice`);
    const eventType = named ?? route.eventType;
    if (eventType === undefined)
      throw new UnknownWebhookEventError(`no ${WEBHOOK_EVENT_TYPE_HEADER} header, which ${route.path} needs`);
    const found = dispatch.get(eventType);
    if (found === undefined)
      throw new UnknownWebhookEventError(
        // Sent back in the answer: printable and short, whatever the header held.
        `${JSON.stringify(eventType.replace(/[^\x21-\x7e]/g, "").slice(0, 100))} is not one of ${catalog.eventTypes.join(", ")}`,
      );
    return found;
  };

  /**
   * The webhook a verified body is, and its payload checked against that webhook's schema (before
   * the handler is looked for: a payload is judged by its contract whether or not it is handled).
   */
  const toEvent = ({ json, delivery }: VerifiedBody, headers: IncomingHeaders, route: WebhookRoute) => {
    const { eventType, schema, handler } = resolve(headers, route);
    // A pulled event's request carried the catch-up's credential, not a push's token.
    if (tokenFree.size > 0 && !tokenFree.has(eventType) && route !== PULLED_ROUTE)
      steps.requireToken(headers);
    const payload = checkPayload(schema, json, eventType);
    if (handler === undefined) throw new UnhandledWebhookEventError(eventType);
    const context: WebhookContext = {
      eventType,
      webhookId: delivery.webhookId,
      timestamp: delivery.timestamp,
      traceparent: delivery.traceparent,
    };
    return { payload, context, handler };
  };

  /** The store's verification request, authenticated: its answer, no handler, no de-duplication. */
  const answerChallenge = (body: string, webhookId: string, spans: ReceiveSpans): DeliveryAnswer => {
    spans.verified(webhookId);
    logger.info({ webhookId }, "webhook verification answered");
    return {
      status: 200,
      headers: NO_HEADERS,
      body,
      closeConnection: false,
      outcome: { outcome: "verification", webhookId },
    };
  };

  /** Verified: the verification request answered, or the handler, once per webhook id. */
  const handleVerified = (
    verified: VerifiedBody,
    spans: ReceiveSpans,
    request: DeliveryRequest,
    route: WebhookRoute,
  ): Maybe<DeliveryAnswer> => {
    let event: ReturnType<typeof toEvent>;
    try {
      // Before the catalog: the handshake is the same on every path and for every catalog.
      const { webhookId } = verified.delivery;
      const answer = answerVerification(verified.json, request.headers, webhookId);
      // The promise branch runs only with the Web Crypto build (workerd test), as in handleBody.
      // Stryker disable all
      if (answer instanceof Promise)
        return answer.then(
          (body) => answerChallenge(body, webhookId, spans),
          (error: unknown) => fail(error, spans, request, false),
        );
      // Stryker restore all
      if (answer !== undefined) return answerChallenge(answer, webhookId, spans);
      event = toEvent(verified, request.headers, route);
    } catch (error) {
      return fail(error, spans, request, false);
    }
    const { payload, context, handler } = event;
    const id = context.webhookId;
    try {
      spans.verified(id);
      const outcome = spans.handle(id, () => once.runNow(id, () => handler(payload, context)));
      return outcome instanceof Promise
        ? outcome.then(
            (settled) => answered(settled, id),
            (error: unknown) => fail(error, spans, request, false, id),
          )
        : answered(outcome, id);
    } catch (error) {
      return fail(error, spans, request, false, id);
    }
  };

  /** The body is in: signature and timestamp, JSON, then the webhook it is. */
  const handleBody = (
    raw: Uint8Array,
    spans: ReceiveSpans,
    request: DeliveryRequest,
    route: WebhookRoute,
    traceparent: ReceivedTraceparent | undefined,
  ): Maybe<DeliveryAnswer> => {
    try {
      const result = steps.checkBody(raw, request.headers, traceparent);
      // A promise only from the Web Crypto build (test/integration/workerd.test.ts), which the
      // in-process mutation run cannot load: excluded from it rather than counted as untested.
      // Stryker disable all
      return result instanceof Promise
        ? result.then(
            (verified) => handleVerified(verified, spans, request, route),
            (error: unknown) => fail(error, spans, request, false),
          )
        : // Stryker restore all
          handleVerified(result, spans, request, route);
    } catch (error) {
      return fail(error, spans, request, false);
    }
  };

  /**
   * Every step, in order. On node:crypto with an in-process store and a synchronous handler only
   * the body's arrival is awaited: each later step runs at once instead of a turn of the event loop
   * (and a promise) each, so the answer is a promise only where something is really pending.
   */
  const handle = (request: DeliveryRequest, route: WebhookRoute): Maybe<DeliveryAnswer> => {
    const traceparent = readTraceparent(request.headers);
    const spans = createReceiveSpans(traceparent);
    let raw: Maybe<Uint8Array>;
    try {
      if (request.method !== "POST") throw new MethodNotAllowedError(request.method);
      const checked = steps.checkHeaders(request.headers);
      raw =
        checked instanceof Promise
          ? // Stryker disable next-line all: the Web build's promise branch, as in handleBody
            checked.then(() => request.readBody(steps.maxBodyBytes, bodyTimeoutMs))
          : request.readBody(steps.maxBodyBytes, bodyTimeoutMs);
    } catch (error) {
      return fail(error, spans, request, true);
    }
    return raw instanceof Promise
      ? raw.then(
          (body) => handleBody(body, spans, request, route, traceparent),
          (error: unknown) => fail(error, spans, request, true),
        )
      : handleBody(raw, spans, request, route, traceparent);
  };

  // A pulled event names its webhook by its header; without one, it is the receiver's only webhook.
  const only = routes.length === 1 ? routes[0]?.eventType : undefined;
  const PULLED_ROUTE: WebhookRoute = { path: "(pulled)", eventType: only };
  /**
   * The receive path from the signature on: no bearer token (the events API took the catch-up's own
   * credential) and no content type (the body is the event's JSON text); the same size limit,
   * signature, timestamp, handshake rule, catalog, schema, de-duplication and handler as a push.
   */
  const handlePulled = async ({ headers, body }: PulledDelivery): Promise<DeliveryAnswer> => {
    const traceparent = readTraceparent(headers);
    const spans = createReceiveSpans(traceparent);
    const request: DeliveryRequest = { method: "POST", headers, hasBody: true, readBody: () => body };
    if (body.length > steps.maxBodyBytes)
      return fail(new PayloadTooLargeError(steps.maxBodyBytes), spans, request, false);
    return handleBody(body, spans, request, PULLED_ROUTE, traceparent);
  };

  return {
    [RECEIVER]: true,
    eventTypes: catalog.eventTypes as ReadonlyArray<EventTypeOf<Events>>,
    routes,
    handle,
    [HANDLE_PULLED]: handlePulled,
  };
}
