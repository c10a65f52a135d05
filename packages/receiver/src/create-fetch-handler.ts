import type { ReceiverOptions } from "./create-delivery-handler.js";
import { createRouteMatcher } from "./create-route-matcher.js";
import { JSON_TYPE, type PlantWebhookOutcome, type WebhookReceiver } from "./create-webhook-receiver.js";
import type { IncomingHeaders } from "./header-value.js";
import { readFetchBody } from "./read-fetch-body.js";
import { RECEIVED_HEADERS } from "./received-headers.js";
import { resolveReceiver } from "./resolve-receiver.js";

export interface FetchAdapterOptions {
  /** Called with each answered delivery's outcome, e.g. for metrics. */
  onOutcome?: (outcome: PlantWebhookOutcome, request: Request) => void;
}

export interface FetchHandlerOptions extends ReceiverOptions, FetchAdapterOptions {}

/**
 * The New Plant webhook (given its options), or every webhook of a catalog (given a
 * `createWebhookReceiver` receiver), as `(request: Request) => Promise<Response>`, for Hono, Next.js
 * route handlers, Bun, Deno and Cloudflare Workers: the same steps and options as the Koa router and
 * the Node middleware, on Web Crypto, with no Node built-in on its import path. Its paths match in
 * any case, with or without a trailing slash; other paths get 404.
 *
 * A fetch `Headers` object joins a repeated header into one value (`a, b`); such a joined
 * `webhook-id`, `webhook-signature` or `Authorization` never passes its check, so it is refused too.
 */
export function createFetchHandler(options: FetchHandlerOptions): (request: Request) => Promise<Response>;
export function createFetchHandler(
  receiver: WebhookReceiver,
  options?: FetchAdapterOptions,
): (request: Request) => Promise<Response>;
export function createFetchHandler(
  receiverOrOptions: WebhookReceiver | FetchHandlerOptions,
  adapterOptions?: FetchAdapterOptions,
): (request: Request) => Promise<Response> {
  const { receiver, adapter } = resolveReceiver(receiverOrOptions, adapterOptions);
  const route = createRouteMatcher(receiver.routes);
  const { onOutcome } = adapter;

  return async (request) => {
    const matched = route(new URL(request.url).pathname);
    if (matched === undefined) {
      return new Response(JSON.stringify({ error: 404, message: "Not found" }), {
        status: 404,
        headers: { "Content-Type": JSON_TYPE },
      });
    }
    const headers: IncomingHeaders = {};
    for (const name of RECEIVED_HEADERS) {
      const value = request.headers.get(name);
      if (value !== null) headers[name] = [value];
    }
    const length = request.headers.get("content-length");
    const answer = await receiver.handle(
      {
        method: request.method,
        headers,
        hasBody: request.body !== null && length !== "0",
        readBody: (limit, timeoutMs) => readFetchBody(request, limit, timeoutMs),
      },
      matched,
    );
    const out = new Headers(answer.headers);
    out.set("Content-Type", JSON_TYPE);
    if (answer.closeConnection) out.set("Connection", "close");
    onOutcome?.(answer.outcome, request);
    return new Response(answer.body, { status: answer.status, headers: out });
  };
}
