import { Router, type RouterInstance } from "@koa/router";
import { DELIVERY_TIMEOUT_MS, type Delivery, type NewPlant } from "@plant-store/types";
import type { Context } from "koa";
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
  /** Where handled webhook ids are remembered. Default: in memory (one process only). */
  dedupStore?: DedupStore;
  /** Runs once per webhook id. Throwing answers 500, so the sender retries. */
  onNewPlant: (plant: NewPlant, delivery: Delivery) => void | Promise<void>;
  logger?: ReceiverLogger;
  /** Bounded wait for a copy of the same id handled by another instance. Default 10 000 ms. */
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

const silent: ReceiverLogger = { info() {}, warn() {}, error() {} };

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
    store: options.dedupStore ?? createMemoryDedupStore(),
    ...(options.maxWaitMs === undefined ? {} : { maxWaitMs: options.maxWaitMs }),
  });

  const answer = (ctx: Context, error: WebhookError, webhookId?: string) => {
    ctx.status = error.status;
    ctx.set(error.headers);
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

  const router = new Router();
  router.post(path, async (ctx) => {
    let webhookId: string | undefined;
    try {
      // Not `ctx.headers`: Node joins a repeated custom header into one comma-separated string (and
      // keeps only the first Authorization), so a second webhook-signature would pass unnoticed.
      // Every copy, as sent, lets a repeated header be refused as ambiguous.
      const headers = ctx.req.headersDistinct;
      steps.checkHeaders(headers);
      const raw = await readRawBody(ctx.req, { limit: steps.maxBodyBytes, timeoutMs: bodyTimeoutMs });
      const { plant, delivery } = steps.checkBody(raw, headers);
      webhookId = delivery.webhookId;
      const outcome = await once.run(delivery.webhookId, async () => {
        await options.onNewPlant(plant, delivery);
      });
      const duplicate = outcome === "duplicate";
      ctx.status = 200;
      ctx.body = { received: true, duplicate };
      ctx.state.plantWebhook = {
        outcome: duplicate ? "duplicate" : "received",
        webhookId,
      } satisfies PlantWebhookOutcome;
      logger.info({ webhookId, duplicate }, "plant webhook received");
    } catch (error) {
      answer(ctx, error instanceof WebhookError ? error : new InternalReceiverError(error), webhookId);
    }
  });
  router.all(path, (ctx) => {
    answer(ctx, new MethodNotAllowedError(ctx.method));
  });
  return router;
}
