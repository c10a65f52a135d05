import type { IncomingMessage } from "node:http";
import type { Router } from "@koa/router";
import type { Middleware } from "koa";
import type { AuthThrottle } from "./create-auth-throttle.js";
import type { BrowserSessions } from "./create-browser-sessions.js";
import { HttpError } from "./http-error.js";
import { refuseRequest } from "./refuse-request.js";
import { refuseWhileThrottled } from "./refuse-while-throttled.js";

export interface SessionRoutesOptions {
  sessions: BrowserSessions;
  throttle: AuthThrottle;
  /** Whether `candidate` is the long-lived token (compared in constant time by the caller). */
  acceptsToken(candidate: string): boolean;
  /** What the long-lived token is called in messages: "admin token", "read token". */
  credential: string;
  /**
   * The bearer guard, for `POST /login-codes` and `DELETE /sessions/current`; leave it out when the app
   * already guards every path but `POST /sessions`.
   */
  guard?: Middleware;
  /** Runs first on all three routes (e.g. refusing them while the feature they open is off). */
  before?: Middleware;
}

// A code or a token, and a little JSON around it.
const MAX_BODY_BYTES = 4096;

async function readSignIn(req: IncomingMessage): Promise<{ code?: unknown; token?: unknown }> {
  // JSON only: a cross-site form cannot send it without a preflight this server never answers.
  const [type, ...parameters] = String(req.headers["content-type"] ?? "")
    .split(";")
    .map((part) => part.trim().toLowerCase());
  if (type !== "application/json")
    throw new HttpError(415, "ERR_UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json");
  // JSON is UTF-8 (RFC 8259): a body declared in another charset was read as UTF-8 all the same.
  const charset = parameters
    .find((parameter) => parameter.replace(/\s*=.*/, "") === "charset")
    ?.replace(/^[^=]*=\s*"?([^"]*)"?$/, "$1");
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8")
    throw new HttpError(415, "ERR_UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json in UTF-8");
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES)
      throw new HttpError(413, "ERR_BODY_TOO_LARGE", `Body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    const body: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (body !== null && typeof body === "object" && !Array.isArray(body)) return body;
  } catch {
    // The answer below.
  }
  throw new HttpError(400, "ERR_INVALID_INPUT", 'Send {"code": "<sign-in code>"} or {"token": "<token>"}');
}

/**
 * A page's way in without a long-lived token in any URL:
 *
 * - `POST /login-codes` (the long-lived token as bearer, not a session): a single-use sign-in code,
 *   for a link `/#code=<code>` (a fragment: never sent to the server, and worthless once used or expired).
 * - `POST /sessions` `{"code": …}` or `{"token": …}` (no bearer): a session token for the page, 201.
 *   A wrong code or token counts against the client like a wrong bearer token.
 * - `DELETE /sessions/current` (the session as bearer): ends it, 204.
 */
export function addSessionRoutes(router: Router, options: SessionRoutesOptions): void {
  const { sessions, throttle } = options;
  const first: Middleware[] = options.before ? [options.before] : [];
  const guarded: Middleware[] = [...first, ...(options.guard ? [options.guard] : [])];

  router.post("/login-codes", ...guarded, (ctx) => {
    if (ctx.state.auth !== "token") {
      refuseRequest(
        ctx,
        403,
        `Sign-in codes are issued for the ${options.credential} itself, not for a session`,
      );
      return;
    }
    const { code, expiresAt } = sessions.issueCode();
    ctx.status = 201;
    ctx.set("Cache-Control", "no-store");
    ctx.body = { code, expiresAt: expiresAt.toISOString() };
  });

  router.post("/sessions", ...first, async (ctx) => {
    const client = refuseWhileThrottled(ctx, throttle);
    if (client === undefined) return;
    const { code, token } = await readSignIn(ctx.req);
    const session =
      typeof code === "string" && token === undefined
        ? sessions.redeemCode(code)
        : typeof token === "string" && code === undefined && options.acceptsToken(token)
          ? sessions.open()
          : undefined;
    if (session === undefined) {
      throttle.failed(client);
      refuseRequest(
        ctx,
        401,
        `The sign-in code is unknown, used or expired, or the ${options.credential} is wrong`,
      );
      return;
    }
    ctx.status = 201;
    ctx.set("Cache-Control", "no-store");
    ctx.body = { session: session.token, expiresAt: session.expiresAt.toISOString() };
  });

  router.delete("/sessions/current", ...guarded, (ctx) => {
    const token = /^Bearer (.+)$/i.exec(ctx.get("Authorization"))?.[1];
    if (ctx.state.auth !== "session" || token === undefined || !sessions.end(token)) {
      refuseRequest(ctx, 403, "Only a session ends itself: send it as Authorization: Bearer <session>");
      return;
    }
    ctx.status = 204;
  });
}
