import type { Context } from "koa";
import { createDeliveryHandler, JSON_TYPE, type ReceiverOptions } from "./create-delivery-handler.js";
import { createHeaderCollector } from "./create-header-collector.js";
import { firstCopy } from "./header-value.js";
import { nodeConstantTimeEqual } from "./node-constant-time-equal.js";
import { readRawBody } from "./read-raw-body.js";
import { RECEIVED_HEADERS } from "./received-headers.js";

/** The receive path as a Koa handler for one matched request: what the middleware and the router share. */
export function createKoaDeliveryHandler(options: ReceiverOptions): {
  path: string;
  handle(ctx: Context): Promise<void>;
} {
  const handler = createDeliveryHandler(options, nodeConstantTimeEqual);
  const collectHeaders = createHeaderCollector(RECEIVED_HEADERS);
  return {
    path: handler.path,
    async handle(ctx) {
      // Every copy of each header, as sent (what `req.headersDistinct` holds), not `ctx.headers`:
      // Node joins a repeated custom header into one comma-separated string (and keeps only the
      // first Authorization), so a second webhook-signature would pass unnoticed. Every copy lets a
      // repeated header be refused as ambiguous.
      const headers = collectHeaders(ctx.req.rawHeaders);
      // Node refuses a request whose Content-Length copies differ, so any copy is the length.
      const length = firstCopy(headers["content-length"]);
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
    },
  };
}
