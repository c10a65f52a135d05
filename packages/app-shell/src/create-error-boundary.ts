import type { Middleware, ParameterizedContext } from "koa";
import { MethodNotAllowedError } from "./http-error.js";

interface BoundaryLogger {
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** What the boundary needs to answer an error: a status, a message and headers to set. */
export interface ErrorAnswer {
  status: number;
  message: string;
  headers?: Readonly<Record<string, string>>;
}

export interface ErrorBoundaryOptions {
  logger?: BoundaryLogger;
  /** An app's own reading of errors that carry no status (e.g. a database that is unavailable: 503). */
  classify?: (error: unknown) => ErrorAnswer | undefined;
  /** Paths in log lines, e.g. shortened; default as they are. */
  describePath?: (path: string) => string;
}

/** The methods of every route matched on the way: what an `Allow` header lists. */
function allowedMethods(ctx: ParameterizedContext): string[] {
  const matched = (ctx as { matched?: { methods: string[] }[] }).matched ?? [];
  return [...new Set(matched.flatMap((layer) => layer.methods))];
}

function answerOf(error: unknown): ErrorAnswer | undefined {
  const { status, code, expose, message, headers } = (error ?? {}) as {
    status?: unknown;
    code?: unknown;
    expose?: unknown;
    message?: unknown;
    headers?: unknown;
  };
  if (typeof status !== "number" || !Number.isInteger(status) || status < 400 || status > 599) return;
  // An app's own error (a stable code) or an http-errors client error Koa or a router threw
  // (`expose`); anything else with a status is not known well enough to answer with its message.
  if (typeof code !== "string" && expose !== true) return;
  return {
    status,
    message: typeof message === "string" && message !== "" ? message : "Request refused",
    ...(headers !== null && typeof headers === "object"
      ? { headers: headers as Record<string, string> }
      : {}),
  };
}

/**
 * The first middleware of both apps: errors carrying a `status` and a `code` (or Koa's exposed client
 * errors) become the contract's Error body `{error: status, message}` with that status; a request no
 * route took becomes 404, a method a matched route does not have 405 with `Allow` (mount routers
 * with `mountRouter`, which makes them throw); anything else a logged 500 with a generic message,
 * never a stack or a secret.
 */
export function createErrorBoundary(options: ErrorBoundaryOptions = {}): Middleware {
  const { logger } = options;
  const describePath = options.describePath ?? ((path: string) => path);
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body == null) {
        ctx.status = 404;
        ctx.body = { error: 404, message: "Not found" };
      }
    } catch (error) {
      if (error instanceof MethodNotAllowedError) {
        const allow = allowedMethods(ctx);
        // koa-router throws for a method it has no route for on any path: no route, no 405.
        if (allow.length === 0) {
          ctx.status = 404;
          ctx.body = { error: 404, message: "Not found" };
          return;
        }
        ctx.status = 405;
        ctx.set("Allow", allow.join(", "));
        ctx.body = { error: 405, message: `Method not allowed; use ${allow.join(" or ")}` };
        return;
      }
      const answer = options.classify?.(error) ?? answerOf(error);
      if (answer === undefined) {
        logger?.error({ err: error, method: ctx.method, path: describePath(ctx.path) }, "request failed");
        ctx.status = 500;
        ctx.body = { error: 500, message: "Internal error" };
        return;
      }
      if (answer.status >= 500) {
        logger?.error({ err: error, method: ctx.method, path: describePath(ctx.path) }, "request failed");
      } else {
        logger?.warn({ status: answer.status, path: describePath(ctx.path) }, "request refused");
      }
      ctx.status = answer.status;
      if (answer.headers !== undefined) ctx.set(answer.headers);
      ctx.body = { error: answer.status, message: answer.message };
    }
  };
}
