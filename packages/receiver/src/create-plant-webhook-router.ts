import { Router, type RouterInstance } from "@koa/router";
import type { Context } from "koa";
import { createDeliveryHandler, JSON_TYPE, type ReceiverOptions } from "./create-delivery-handler.js";
import { createHeaderCollector } from "./create-header-collector.js";
import { nodeConstantTimeEqual } from "./node-constant-time-equal.js";
import { readRawBody } from "./read-raw-body.js";
import { RECEIVED_HEADERS } from "./received-headers.js";

export type { PlantWebhookOutcome, ReceiverOptions } from "./create-delivery-handler.js";

/**
 * A `@koa/router` router answering the New Plant webhook. Mount it before any body parser:
 * it reads the raw bytes itself, because the signature covers exactly those bytes.
 */
export function createPlantWebhookRouter(options: ReceiverOptions): RouterInstance {
  const handler = createDeliveryHandler(options, nodeConstantTimeEqual);
  const collectHeaders = createHeaderCollector(RECEIVED_HEADERS);

  const handle = async (ctx: Context): Promise<void> => {
    // Every copy of each header, as sent (what `req.headersDistinct` holds), not `ctx.headers`:
    // Node joins a repeated custom header into one comma-separated string (and keeps only the
    // first Authorization), so a second webhook-signature would pass unnoticed. Every copy lets a
    // repeated header be refused as ambiguous.
    const headers = collectHeaders(ctx.req.rawHeaders);
    const length = headers["content-length"]?.[0];
    const answer = await handler.handle({
      method: ctx.method,
      headers,
      hasBody: headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0"),
      readBody: (limit, timeoutMs) => readRawBody(ctx.req, { limit, timeoutMs, contentLength: length }),
    });
    ctx.status = answer.status;
    for (const name in answer.headers) ctx.set(name, answer.headers[name] as string);
    if (answer.closeConnection) ctx.set("Connection", "close");
    // The bytes Koa would send for the JSON object, without serialising it again or looking up the
    // JSON media type on every request.
    ctx.set("Content-Type", JSON_TYPE);
    ctx.body = answer.body;
    ctx.state.plantWebhook = answer.outcome;
  };

  const router = new Router();
  // One layer for every method: the 405 answer is the handler's, so the router matches one route
  // per request instead of two (`post` then `all`).
  router.all(options.path ?? "/plant/webhook", handle);
  return router;
}
