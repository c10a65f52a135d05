import type { IncomingMessage, ServerResponse } from "node:http";
import { setMountPoint, stripPrefix } from "./mount-prefix.js";

/** What the API's Koa app serves. */
export type ApiRequest = IncomingMessage;
export type RequestListener = (req: ApiRequest, res: ServerResponse) => Promise<void>;

/**
 * A node:http, Express or Connect handler. Resolves once the API has answered (Express ignores that).
 * `next` is called only for a request outside `basePath`, when there is one.
 */
export type NodeHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void,
) => Promise<void>;

/**
 * Serves the API where it is mounted: under Express's `app.use(path, …)` the request's `baseUrl` says
 * where (Express already took it off `req.url`); as a whole server, `basePath` is taken off here, and a
 * request outside it goes to `next` or gets a plain 404.
 */
export function createNodeHandler(listener: RequestListener, basePath: string | undefined): NodeHandler {
  return async (req, res, next) => {
    const mounted = (req as { baseUrl?: unknown }).baseUrl;
    if (typeof mounted === "string") {
      setMountPoint(req, { prefix: mounted });
      return listener(req, res);
    }
    const path = stripPrefix(req.url ?? "/", basePath ?? "");
    if (path === undefined) {
      if (next) return next();
      res.statusCode = 404;
      res.end();
      return;
    }
    req.url = path;
    setMountPoint(req, { prefix: basePath ?? "" });
    return listener(req, res);
  };
}
