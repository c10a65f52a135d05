import type { Context } from "koa";
import { createDeliveryHandler, JSON_TYPE, type ReceiverOptions } from "./create-delivery-handler.js";
import { createNodeRequestReader } from "./create-node-request-reader.js";
import { nodeConstantTimeEqual } from "./node-constant-time-equal.js";

/** The receive path as a Koa handler for one matched request: what the middleware and the router share. */
export function createKoaDeliveryHandler(options: ReceiverOptions): {
  path: string;
  handle(ctx: Context): Promise<void>;
} {
  const handler = createDeliveryHandler(options, nodeConstantTimeEqual);
  const read = createNodeRequestReader();
  return {
    path: handler.path,
    async handle(ctx) {
      const answer = await handler.handle(read(ctx.req));
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
