import { Router, type RouterInstance } from "@koa/router";
import {
  DELIVERY_TIMEOUT_MS,
  type Delivery,
  type NewPlant,
  TIMESTAMP_TOLERANCE_SECONDS,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from "@plant-store/types";
import type { Context } from "koa";
import { addFastRoute } from "./add-fast-route.js";
import { createHeaderCollector } from "./create-header-collector.js";
import { createMemoryDedupStore } from "./create-memory-dedup-store.js";
import { createOnceRunner } from "./create-once-runner.js";
import { createVerificationSteps, type VerifierOptions } from "./create-verification-steps.js";
import type { DedupStore } from "./dedup-store.js";
import { InternalReceiverError } from "./errors/internal-receiver-error.js";
import { InvalidReceiverOptionsError } from "./errors/invalid-receiver-options-error.js";
import { MethodNotAllowedError } from "./errors/method-not-allowed-error.js";
import { readRawBody } from "./read-raw-body.js";
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

/** What the router leaves in `ctx.state.plantWebhook`, for metrics and access logs. */
export interface PlantWebhookOutcome {
  outcome: "received" | "duplicate" | "rejected" | "failed";
  code?: string;
  webhookId?: string;
}

/** Whether the request announced a body (one that is still to come, when nothing has read it). */
function hasBody(ctx: Context): boolean {
  const { headers } = ctx.req;
  const length = headers["content-length"];
  return headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

const silent: ReceiverLogger = { info() {}, warn() {}, error() {} };
const JSON_TYPE = "application/json; charset=utf-8";
const RECEIVED_BODY = JSON.stringify({ received: true, duplicate: false });
const DUPLICATE_BODY = JSON.stringify({ received: true, duplicate: true });

/**
 * A `@koa/router` router answering the New Plant webhook. Mount it before any body parser:
 * it reads the raw bytes itself, because the signature covers exactly those bytes.
 */
export function createPlantWebhookRouter(options: ReceiverOptions): RouterInstance {
  const steps = createVerificationSteps(options);
  const path = options.path ?? "/plant/webhook";
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

  const answer = (ctx: Context, error: WebhookError, bodyUnread: boolean, webhookId?: string) => {
    ctx.status = error.status;
    ctx.set(error.headers);
    // Refused before its body was read: keeping the connection alive would make Node read the whole
    // body (whatever its size) to reach the next request. Closing it stops reading at once.
    if (bodyUnread && hasBody(ctx)) ctx.set("Connection", "close");
    ctx.body = error.toJSON();
    const outcome: PlantWebhookOutcome = {
      outcome: error.status >= 500 ? "failed" : "rejected",
      code: error.code,
      ...(webhookId === undefined ? {} : { webhookId }),
    };
    ctx.state.plantWebhook = outcome;
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
  };

  const collectHeaders = createHeaderCollector([
    "authorization",
    "content-type",
    "content-length",
    WEBHOOK_ID_HEADER,
    WEBHOOK_TIMESTAMP_HEADER,
    WEBHOOK_SIGNATURE_HEADER,
  ]);

  const handle = async (ctx: Context): Promise<void> => {
    let webhookId: string | undefined;
    let bodyUnread = true;
    try {
      // Every copy of each header, as sent (what `req.headersDistinct` holds), not `ctx.headers`:
      // Node joins a repeated custom header into one comma-separated string (and keeps only the
      // first Authorization), so a second webhook-signature would pass unnoticed. Every copy lets a
      // repeated header be refused as ambiguous.
      const headers = collectHeaders(ctx.req.rawHeaders);
      steps.checkHeaders(headers);
      const length = headers["content-length"];
      const raw = await readRawBody(ctx.req, {
        limit: steps.maxBodyBytes,
        timeoutMs: bodyTimeoutMs,
        contentLength: Array.isArray(length) ? length[0] : length,
      });
      bodyUnread = false;
      const { plant, delivery } = steps.checkBody(raw, headers);
      webhookId = delivery.webhookId;
      const outcome = await once.run(webhookId, () => options.onNewPlant(plant, delivery));
      const duplicate = outcome === "duplicate";
      ctx.status = 200;
      // The same bytes Koa would send for `{ received: true, duplicate }`, without serialising and
      // looking up the JSON media type on every request.
      ctx.set("Content-Type", JSON_TYPE);
      ctx.body = duplicate ? DUPLICATE_BODY : RECEIVED_BODY;
      ctx.state.plantWebhook = {
        outcome: duplicate ? "duplicate" : "received",
        webhookId,
      } satisfies PlantWebhookOutcome;
      // One line per delivery only when asked for: at info level it would be most of the cost.
      logger.debug?.({ webhookId, duplicate }, "plant webhook received");
    } catch (error) {
      answer(
        ctx,
        error instanceof WebhookError ? error : new InternalReceiverError(error),
        bodyUnread,
        webhookId,
      );
    }
  };

  const router = new Router();
  router.post(path, handle);
  router.all(path, (ctx) => {
    answer(ctx, new MethodNotAllowedError(ctx.method), true);
  });
  addFastRoute(router, "POST", path, handle);
  return router;
}
