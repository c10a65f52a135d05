import {
  DELIVERY_TIMEOUT_MS,
  type Delivery,
  type NewPlant,
  TIMESTAMP_TOLERANCE_SECONDS,
} from "@plant-store/types";
import { createMemoryDedupStore } from "./create-memory-dedup-store.js";
import { createOnceRunner, type OnceOutcome } from "./create-once-runner.js";
import { createReceiveSpans, type ReceiveSpans } from "./create-receive-spans.js";
import {
  createVerificationSteps,
  type VerifiedDelivery,
  type VerifierOptions,
} from "./create-verification-steps.js";
import type { DedupStore } from "./dedup-store.js";
import { InternalReceiverError } from "./errors/internal-receiver-error.js";
import { InvalidReceiverOptionsError } from "./errors/invalid-receiver-options-error.js";
import { MethodNotAllowedError } from "./errors/method-not-allowed-error.js";
import type { IncomingHeaders } from "./header-value.js";
import type { Maybe } from "./maybe.js";
import { type ReceivedTraceparent, readTraceparent } from "./read-traceparent.js";
import type { ReceiverLogger } from "./receiver-logger.js";
import { WebhookError } from "./webhook-error.js";

export interface ReceiverOptions extends VerifierOptions {
  /** Route path. Default `/plant/webhook`. */
  path?: string;
  /**
   * Where handled webhook ids are remembered. Default: in memory (one process only), keeping every id
   * for at least twice `toleranceSeconds` (while it could be replayed) even when full.
   */
  dedupStore?: DedupStore;
  /** Runs once per webhook id. Throwing answers 500, so the sender retries. */
  onNewPlant: (plant: NewPlant, delivery: Delivery) => void | Promise<void>;
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

/** What an adapter leaves for metrics and access logs (Koa: `ctx.state.plantWebhook`). */
export interface PlantWebhookOutcome {
  outcome: "received" | "duplicate" | "rejected" | "failed";
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

export interface DeliveryHandler {
  path: string;
  /** The answer, at once when no step had to wait (a promise otherwise); never throws or rejects. */
  handle(request: DeliveryRequest): Maybe<DeliveryAnswer>;
}

export const JSON_TYPE = "application/json; charset=utf-8";
const silent: ReceiverLogger = { info() {}, warn() {}, error() {} };
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const RECEIVED_BODY = JSON.stringify({ received: true, duplicate: false });
const DUPLICATE_BODY = JSON.stringify({ received: true, duplicate: true });

/**
 * The receive path, once for every adapter (Koa router, node:http middleware, fetch handler):
 * method, bearer token, content type, body (size, deadline), signature and timestamp, JSON, schema,
 * de-duplication, handler. Adapters only read the request and write the answer.
 */
export function createDeliveryHandler(options: ReceiverOptions): DeliveryHandler {
  const steps = createVerificationSteps(options);
  const path = options.path ?? "/plant/webhook";
  if (typeof path !== "string" || !path.startsWith("/")) {
    throw new InvalidReceiverOptionsError("Invalid receiver options: path: must start with /");
  }
  if (typeof options.onNewPlant !== "function") {
    throw new InvalidReceiverOptionsError("Invalid receiver options: onNewPlant: must be a function");
  }
  const logger = options.logger ?? silent;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DELIVERY_TIMEOUT_MS;
  if (!Number.isInteger(bodyTimeoutMs) || bodyTimeoutMs <= 0) {
    throw new InvalidReceiverOptionsError(
      "Invalid receiver options: bodyTimeoutMs: must be a positive integer",
    );
  }
  const once = createOnceRunner({
    store:
      options.dedupStore ??
      createMemoryDedupStore({
        minRetentionMs: 2 * (options.toleranceSeconds ?? TIMESTAMP_TOLERANCE_SECONDS) * 1000,
      }),
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

  /** Verified: the handler, once per webhook id. */
  const handleVerified = (
    { plant, delivery }: VerifiedDelivery,
    spans: ReceiveSpans,
    request: DeliveryRequest,
  ): Maybe<DeliveryAnswer> => {
    const id = delivery.webhookId;
    try {
      spans.verified(id);
      const outcome = spans.handle(id, () => once.runNow(id, () => options.onNewPlant(plant, delivery)));
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

  /** The body is in: signature and timestamp, JSON, schema, then the handler. */
  const handleBody = (
    raw: Uint8Array,
    spans: ReceiveSpans,
    request: DeliveryRequest,
    traceparent: ReceivedTraceparent | undefined,
  ): Maybe<DeliveryAnswer> => {
    try {
      const result = steps.checkBody(raw, request.headers, traceparent);
      return result instanceof Promise
        ? result.then(
            (verified) => handleVerified(verified, spans, request),
            (error: unknown) => fail(error, spans, request, false),
          )
        : handleVerified(result, spans, request);
    } catch (error) {
      return fail(error, spans, request, false);
    }
  };

  /**
   * Every step, in order. On node:crypto with an in-process store and a synchronous handler only
   * the body's arrival is awaited: each later step runs at once instead of a turn of the event loop
   * (and a promise) each, so the answer is a promise only where something is really pending.
   */
  const handle = (request: DeliveryRequest): Maybe<DeliveryAnswer> => {
    const traceparent = readTraceparent(request.headers);
    const spans = createReceiveSpans(traceparent);
    let raw: Maybe<Uint8Array>;
    try {
      if (request.method !== "POST") throw new MethodNotAllowedError(request.method);
      const checked = steps.checkHeaders(request.headers);
      raw =
        checked instanceof Promise
          ? checked.then(() => request.readBody(steps.maxBodyBytes, bodyTimeoutMs))
          : request.readBody(steps.maxBodyBytes, bodyTimeoutMs);
    } catch (error) {
      return fail(error, spans, request, true);
    }
    return raw instanceof Promise
      ? raw.then(
          (body) => handleBody(body, spans, request, traceparent),
          (error: unknown) => fail(error, spans, request, true),
        )
      : handleBody(raw, spans, request, traceparent);
  };

  return { path, handle };
}
