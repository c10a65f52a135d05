import type { IncomingMessage, ServerResponse } from "node:http";
import type { ReceiverOptions } from "./create-delivery-handler.js";
import { createNodeRequestReader } from "./create-node-request-reader.js";
import { createRouteMatcher } from "./create-route-matcher.js";
import {
  type DeliveryAnswer,
  JSON_TYPE,
  type PlantWebhookOutcome,
  type WebhookReceiver,
} from "./create-webhook-receiver.js";
import { requestPath } from "./request-path.js";
import { resolveReceiver } from "./resolve-receiver.js";

/** `(req, res, next?)`: a `node:http` request listener and an Express/Connect middleware in one. */
export type NodeMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void,
) => Promise<void>;

export interface NodeAdapterOptions {
  /** Called with each answered delivery's outcome, e.g. for metrics. */
  onOutcome?: (outcome: PlantWebhookOutcome, req: IncomingMessage) => void;
}

export interface NodeMiddlewareOptions extends ReceiverOptions, NodeAdapterOptions {}

const NOT_FOUND_BODY = JSON.stringify({ error: 404, message: "Not found" });
const DONE: Promise<void> = Promise.resolve();

/**
 * The answer with its `Content-Length`: `writeHead` stores the headers at once, so without a length
 * `end(body)` would send the answer chunked (three more pieces on the wire for every delivery).
 */
function send(res: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  headers["Content-Length"] = String(Buffer.byteLength(body));
  res.writeHead(status, headers).end(body);
}

/**
 * The New Plant webhook (given its options), or every webhook of a catalog (given a
 * `createWebhookReceiver` receiver), for `node:http` (`http.createServer(middleware)`) and
 * Express/Connect (`app.use(middleware)`), running the same steps as the Koa router, on the same
 * paths (any case, with or without a trailing slash). Requests for other paths go to `next()` when
 * there is one, and get 404 otherwise. Mount it before any body parser: if one already read the
 * body, the answer is 500 `ERR_BODY_ALREADY_CONSUMED`, saying so.
 */
export function createNodeMiddleware(options: NodeMiddlewareOptions): NodeMiddleware;
export function createNodeMiddleware(receiver: WebhookReceiver, options?: NodeAdapterOptions): NodeMiddleware;
export function createNodeMiddleware(
  receiverOrOptions: WebhookReceiver | NodeMiddlewareOptions,
  adapterOptions?: NodeAdapterOptions,
): NodeMiddleware {
  const { receiver, adapter } = resolveReceiver(receiverOrOptions, adapterOptions);
  const read = createNodeRequestReader();
  const route = createRouteMatcher(receiver.routes);
  const { onOutcome } = adapter;

  const reply = (req: IncomingMessage, res: ServerResponse, answer: DeliveryAnswer): void => {
    const out: Record<string, string> = { ...answer.headers, "Content-Type": JSON_TYPE };
    if (answer.closeConnection) out.Connection = "close";
    send(res, answer.status, out, answer.body);
    onOutcome?.(answer.outcome, req);
  };

  return (req, res, next) => {
    // Express strips a mount path from `req.url` and keeps the full one in `originalUrl`.
    const matched = route(requestPath(req.url));
    if (matched === undefined) {
      if (next !== undefined) next();
      else send(res, 404, { "Content-Type": JSON_TYPE }, NOT_FOUND_BODY);
      return DONE;
    }
    const answer = receiver.handle(read(req), matched);
    if (answer instanceof Promise) return answer.then((settled) => reply(req, res, settled));
    reply(req, res, answer);
    return DONE;
  };
}
