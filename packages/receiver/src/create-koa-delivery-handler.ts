import type { Context } from "koa";
import { createNodeRequestReader } from "./create-node-request-reader.js";
import {
  type DeliveryAnswer,
  JSON_TYPE,
  type WebhookReceiver,
  type WebhookRoute,
} from "./create-webhook-receiver.js";

const DONE: Promise<void> = Promise.resolve();

/** The receive path as a Koa handler for one matched request: what the middleware and the router share. */
export function createKoaDeliveryHandler(
  receiver: WebhookReceiver,
): (ctx: Context, route: WebhookRoute) => Promise<void> {
  const read = createNodeRequestReader();
  const answer = (ctx: Context, { status, headers, closeConnection, body, outcome }: DeliveryAnswer) => {
    // `ctx.response` itself: `ctx.status`, `ctx.set` and `ctx.body` reach the same members through
    // Koa's delegating accessors, a call more each.
    const { response } = ctx;
    response.status = status;
    for (const name in headers) response.set(name, headers[name] as string);
    if (closeConnection) response.set("Connection", "close");
    // The bytes Koa would send for the JSON object, without serialising it again or looking up the
    // JSON media type on every request.
    response.set("Content-Type", JSON_TYPE);
    response.body = body;
    ctx.state.plantWebhook = outcome;
  };
  return (ctx, route) => {
    const settled = receiver.handle(read(ctx.req), route);
    if (settled instanceof Promise) return settled.then((value) => answer(ctx, value));
    answer(ctx, settled);
    return DONE;
  };
}
