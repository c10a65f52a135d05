import { AsyncLocalStorage } from "node:async_hooks";
import { Router } from "@koa/router";
import {
  type CatchUpEventLogged,
  createErrorBoundary,
  mountRouter,
  type PlantStored,
  type WebhookHandled,
} from "@plant-store/app-shell";
import {
  type CatchUp,
  type CatchUpEvent,
  type CursorStore,
  createCatchUp,
  createWebhookReceiver,
  type DedupStore,
  type PlantWebhookOutcome,
  type ReceiverLogger,
} from "@plant-store/receiver";
import { createPlantWebhookMiddleware } from "@plant-store/receiver/koa";
import { type Delivery, type NewPlant, PLANT_STORE_WEBHOOKS, parseTraceparent } from "@plant-store/types";
import Koa from "koa";
import { createDeliveryLog } from "./create-delivery-log.js";
import { createMetrics } from "./create-metrics.js";
import type { PlantEvents } from "./create-plant-events.js";
import { createReadAccess } from "./create-read-access.js";
import type { ReceiverConfig } from "./load-config.js";
import { PAGE_HEADERS, PAGE_HTML } from "./page-html.js";
import { PlantNotStorableError } from "./plant-not-storable-error.js";
import type { PlantStore } from "./plant-store.js";
import { truncateForLog } from "./truncate-for-log.js";

export const WEBHOOK_PATH = "/plant/webhook";

export interface AppDeps {
  plantStore: PlantStore;
  dedupStore: DedupStore;
  events: PlantEvents;
  logger: ReceiverLogger;
  now?: () => Date;
  /**
   * Catching up from the store's events API (`--catch-up-from`): through the same receiver as pushes
   * (handler, de-duplication). Made here, started and stopped by the caller (`app.catchUp`).
   */
  catchUp?: { url: string; token: string; intervalMs: number; cursorStore: CursorStore };
}

/** The most refused pulled events the page lists. */
const RECENT_REFUSED = 20;

/** The whole receiver as a Koa app; the caller listens (and owns shutdown). */
export function createApp(
  config: Pick<ReceiverConfig, "tokens" | "secrets"> &
    Partial<Pick<ReceiverConfig, "bodyTimeoutMs" | "readTokens">>,
  deps: AppDeps,
): Koa & { catchUp: CatchUp | undefined } {
  const { plantStore, events, logger } = deps;
  /** Per webhook request: the storage error that makes its answer a 400 rather than a 500. */
  const notStorable = new AsyncLocalStorage<{ error?: PlantNotStorableError }>();
  const metrics = createMetrics();
  const readAccess = createReadAccess(config.readTokens ?? [], {
    logger,
    count: (outcome) => metrics.readRefusals.inc({ outcome }),
  });
  const deliveryLog = createDeliveryLog({ requests: metrics.requests });
  const app = new Koa();
  app.proxy = false;
  // Koa's default handler prints errors to stderr; ours are logged by the boundary below.
  app.silent = true;

  // The error boundary: anything unexpected becomes the spec's error body and a log line.
  app.use(createErrorBoundary({ logger, describePath: truncateForLog }));

  // Counts every request the webhook middleware answered, recognised by the outcome it leaves
  // behind rather than by the path: like a @koa/router route it also answers `/plant/webhook/` and
  // `/PLANT/WEBHOOK`, and a comparison with the exact path would miss those.
  app.use(async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const state = ctx.state.plantWebhook as PlantWebhookOutcome | undefined;
      if (state !== undefined) {
        metrics.requests.inc({ outcome: state.outcome, status: String(ctx.status) });
        metrics.duration.observe({ outcome: state.outcome }, (performance.now() - started) / 1000);
        const event: WebhookHandled = {
          event: "webhook.handled",
          outcome: state.outcome,
          status: ctx.status,
          ...(state.webhookId === undefined ? {} : { webhookId: state.webhookId }),
          ...(state.code === undefined ? {} : { code: state.code }),
        };
        logger.info(event, "webhook handled");
      }
    }
  });

  // The live page's per-delivery details (webhook id, attempt, duplicate, time to answer).
  app.use(deliveryLog.middleware);

  const onNewPlant = async (plant: NewPlant, delivery: Delivery): Promise<void> => {
    let stored: Awaited<ReturnType<PlantStore["add"]>>;
    try {
      stored = await plantStore.add(plant, delivery.webhookId, deps.now?.() ?? new Date());
    } catch (error) {
      const slot = notStorable.getStore();
      if (error instanceof PlantNotStorableError && slot !== undefined) slot.error = error;
      throw error;
    }
    // Already stored: a redelivery after a crash between storing and acknowledging.
    if (stored === undefined) return;
    const traceId = parseTraceparent(delivery.traceparent)?.traceId;
    const event: PlantStored = {
      event: "plant.stored",
      plantId: stored.id,
      webhookId: stored.webhookId,
      name: truncateForLog(stored.name),
      ...(stored.tag === undefined ? {} : { tag: truncateForLog(stored.tag) }),
      // The sender's trace, to find this delivery in a tracing backend.
      ...(traceId === undefined ? {} : { traceId }),
    };
    logger.info(event, "plant received");
    events.publish(stored);
  };
  // One receiver for pushes and for the catch-up's pulled events: one handler, one de-duplication.
  const receiver = createWebhookReceiver({
    catalog: PLANT_STORE_WEBHOOKS,
    paths: { newPlant: WEBHOOK_PATH },
    tokens: config.tokens,
    secrets: config.secrets,
    dedupStore: deps.dedupStore,
    logger,
    ...(config.bodyTimeoutMs === undefined ? {} : { bodyTimeoutMs: config.bodyTimeoutMs }),
    ...(deps.now === undefined ? {} : { now: deps.now }),
    handlers: {
      newPlant: (plant, { webhookId, timestamp, traceparent }) =>
        onNewPlant(plant, { webhookId, timestamp, traceparent }),
    },
  });
  const webhook = createPlantWebhookMiddleware(receiver);

  const refusedPulls: Array<CatchUpEvent & { at: string }> = [];
  const catchUp =
    deps.catchUp &&
    createCatchUp({
      url: deps.catchUp.url,
      token: deps.catchUp.token,
      receiver,
      cursorStore: deps.catchUp.cursorStore,
      intervalMs: deps.catchUp.intervalMs,
      logger,
      onEvent: (pulled) => {
        metrics.catchUpEvents.inc({ outcome: pulled.outcome });
        const event: CatchUpEventLogged = {
          event: "catch-up.event",
          outcome: pulled.outcome,
          webhookId: pulled.webhookId,
          ...(pulled.code === undefined ? {} : { code: pulled.code }),
        };
        if (pulled.outcome === "refused") {
          logger.warn(event, "pulled event refused, skipped");
          refusedPulls.unshift({ ...pulled, at: new Date().toISOString() });
          refusedPulls.length = Math.min(refusedPulls.length, RECENT_REFUSED);
        } else logger.info(event, "pulled event handled");
      },
    });

  // The webhook router answers 500 to any error its handler throws, so that the sender retries. A
  // plant the database refuses for its values would fail the same way on every retry: answered 400
  // instead, the spec's answer for a payload that can never be accepted.
  app.use(async (ctx, next) => {
    const slot: { error?: PlantNotStorableError } = {};
    await notStorable.run(slot, next);
    const state = ctx.state.plantWebhook as PlantWebhookOutcome | undefined;
    if (slot.error === undefined || ctx.status !== 500 || state === undefined) return;
    logger.warn(
      { status: 400, code: slot.error.code, webhookId: state.webhookId, err: slot.error.cause },
      "plant webhook rejected",
    );
    ctx.status = 400;
    ctx.body = { error: 400, message: slot.error.message };
    ctx.state.plantWebhook = { ...state, outcome: "rejected", code: slot.error.code };
  });

  const pages = new Router();
  // The page holds no data: it signs in and reads the routes below with its session.
  pages.get("/", readAccess.whenOn, (ctx) => {
    ctx.set(PAGE_HEADERS);
    ctx.body = PAGE_HTML;
  });
  readAccess.addSessionRoutes(pages);
  pages.get("/plants", readAccess.guard, async (ctx) => {
    const raw = ctx.query.limit ?? "50";
    const limit = typeof raw === "string" && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      ctx.status = 400;
      ctx.body = { error: 400, message: "limit must be a whole number from 1 to 1000" };
      return;
    }
    // `tag: null` for a plant without one: what /plants has always answered.
    ctx.body = {
      plants: (await plantStore.list(limit)).map((plant) => ({ ...plant, tag: plant.tag ?? null })),
    };
  });
  pages.get("/deliveries", readAccess.guard, async (ctx) => {
    ctx.body = await deliveryLog.snapshot();
  });
  // The catch-up's state for the page: where it is, how its last run went, what it refused.
  pages.get("/catch-up", readAccess.guard, (ctx) => {
    if (!catchUp || !deps.catchUp) {
      ctx.body = { enabled: false };
      return;
    }
    const url = new URL(deps.catchUp.url);
    ctx.body = {
      enabled: true,
      // Origin and path only: a URL's user info or query could hold a credential.
      from: `${url.origin}${url.pathname}`,
      intervalMs: deps.catchUp.intervalMs,
      ...catchUp.state(),
      refusedEvents: refusedPulls,
    };
  });
  pages.get("/healthz", async (ctx) => {
    try {
      await plantStore.ping();
      ctx.body = { status: "ok" };
    } catch (error) {
      logger.error({ err: error }, "health check failed");
      ctx.status = 503;
      ctx.body = { error: 503, message: "Storage unavailable" };
    }
  });
  pages.get("/metrics", readAccess.guard, async (ctx) => {
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
  pages.get("/events", readAccess.guard, (ctx) => {
    const client = ctx.req.socket.remoteAddress ?? "unknown";
    const opened = events.open(client);
    if ("refused" in opened) {
      // Shutting down: a stream opened now would hold the server open until the 10 s fallback.
      // Too many: each stream holds a connection, so a file descriptor; past the cap a new one is
      // answered and closed at once, which leaves descriptors for the webhook.
      ctx.status = 503;
      ctx.set({ Connection: "close", "Retry-After": opened.refused === "closed" ? "2" : "30" });
      ctx.body = {
        error: 503,
        message:
          opened.refused === "closed"
            ? "Shutting down"
            : opened.refused === "too-many"
              ? "Too many event streams open; try again later"
              : "Too many event streams open from your address; close one and try again",
      };
      if (opened.refused !== "closed")
        logger.warn({ reason: opened.refused, client }, "event stream refused");
      return;
    }
    const { stream } = opened;
    // An SSE stream lives as long as the browser keeps it; no socket timeout applies.
    ctx.req.socket.setTimeout(0);
    ctx.req.socket.setNoDelay(true);
    ctx.set({
      "Cache-Control": "no-cache, no-transform",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
    });
    ctx.type = "text/event-stream";
    ctx.status = 200;
    ctx.req.on("close", () => stream.end());
    // A stream dropped for falling behind is destroyed; Koa's pipeline then closes the connection,
    // and the browser reconnects and reloads the list.
    ctx.body = stream;
  });

  // The webhook as a plain middleware: its path answered here, every other one passed on to the pages.
  app.use(webhook);
  // A wrong method on a page is a 405 with Allow, a path nobody serves a 404: never koa-router's 501
  // (a 5xx tells the sender to retry), and always the spec's Error body.
  mountRouter(app, pages);
  return Object.assign(app, { catchUp });
}
