import { Router, type RouterInstance } from "@koa/router";
import type { Delivery, NewPlant } from "@plant-store/types";
import type { Context } from "koa";
import getRawBody from "raw-body";
import { createMemoryDedupStore } from "./create-memory-dedup-store.js";
import { createOnceRunner } from "./create-once-runner.js";
import { createVerificationSteps, type VerifierOptions } from "./create-verification-steps.js";
import type { DedupStore } from "./dedup-store.js";
import { InternalReceiverError } from "./errors/internal-receiver-error.js";
import { InvalidJsonError } from "./errors/invalid-json-error.js";
import { MethodNotAllowedError } from "./errors/method-not-allowed-error.js";
import { PayloadTooLargeError } from "./errors/payload-too-large-error.js";
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
  const once = createOnceRunner({
    store: options.dedupStore ?? createMemoryDedupStore(),
    ...(options.maxWaitMs === undefined ? {} : { maxWaitMs: options.maxWaitMs }),
  });

  const readBody = async (ctx: Context): Promise<Buffer> => {
    if (!ctx.req.readable) {
      // Something upstream (a body parser) consumed the stream: the signed bytes are gone.
      throw new InternalReceiverError(
        new Error("Request body already consumed; mount the router before body parsers"),
      );
    }
    const length = ctx.get("content-length");
    try {
      return await getRawBody(ctx.req, {
        limit: steps.maxBodyBytes,
        // raw-body answers 413 before reading anything when Content-Length is over the limit.
        ...(length === "" ? {} : { length }),
      });
    } catch (error) {
      const type = (error as { type?: string }).type;
      if (type === "entity.too.large") throw new PayloadTooLargeError(steps.maxBodyBytes, error);
      if (type === "request.size.invalid") throw new InvalidJsonError(error);
      throw error;
    }
  };

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
      steps.checkHeaders(ctx.headers);
      const raw = await readBody(ctx);
      const { plant, delivery } = steps.checkBody(raw, ctx.headers);
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
