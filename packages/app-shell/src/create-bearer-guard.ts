import type { Middleware } from "koa";
import { clientKey } from "./client-key.js";
import type { AuthThrottle } from "./create-auth-throttle.js";
import type { BrowserSessions } from "./create-browser-sessions.js";
import { refuseRequest as refuse } from "./refuse-request.js";

/**
 * How a request was let in, in `ctx.state.auth`: the long-lived token, a page's session, or a credential
 * the app resolved itself (`resolveOther`; what it answered is in `ctx.state.principal`).
 */
export type AuthKind = "token" | "session" | "other";

export interface BearerGuardOptions {
  /** Whether `candidate` is the long-lived token (compared in constant time by the caller). */
  acceptsToken(candidate: string): boolean;
  sessions: BrowserSessions;
  throttle: AuthThrottle;
  /** The `realm` of `WWW-Authenticate`. */
  realm: string;
  /** What a 401 says: how to get in. */
  message: string;
  /**
   * Any other credential the app knows (a customer's token, a signed link), asked only when the token
   * and the sessions refused it: what it answers (undefined: not one either) is put in
   * `ctx.state.principal`. A wrong one counts against the client like any wrong credential.
   */
  resolveOther?(candidate: string): Promise<unknown> | unknown;
}

// Visible ASCII only: what a bearer token can be (RFC 6750's b64token is narrower still).
const BEARER = /^Bearer ([\x21-\x7e]+)$/i;

/**
 * Koa middleware letting in a request with `Authorization: Bearer <token>`, the token being the
 * long-lived one or a live browser session's. A client that has used its burst of wrong credentials
 * gets 429 and `Retry-After` before anything is compared; a wrong credential is counted against its
 * client (a missing one is not: it guesses nothing); both get 401 with `WWW-Authenticate`.
 */
export function createBearerGuard(options: BearerGuardOptions): Middleware {
  const { throttle, sessions } = options;
  const challenge = { "WWW-Authenticate": `Bearer realm="${options.realm}"` };
  return async (ctx, next) => {
    const client = clientKey(ctx.req.socket.remoteAddress);
    const waitMs = throttle.retryAfterMs(client);
    if (waitMs > 0) {
      throttle.throttled(client);
      const seconds = Math.ceil(waitMs / 1000);
      refuse(ctx, 429, `Too many wrong credentials from your address; try again in ${seconds} s`, {
        "Retry-After": String(seconds),
      });
      return;
    }
    const header = ctx.get("Authorization");
    if (header === "") {
      refuse(ctx, 401, options.message, challenge);
      return;
    }
    const candidate = BEARER.exec(header)?.[1];
    let kind: AuthKind | undefined =
      candidate === undefined
        ? undefined
        : options.acceptsToken(candidate)
          ? "token"
          : sessions.check(candidate)
            ? "session"
            : undefined;
    if (kind === undefined && candidate !== undefined && options.resolveOther) {
      const principal = await options.resolveOther(candidate);
      if (principal !== undefined) {
        kind = "other";
        ctx.state.principal = principal;
      }
    }
    if (kind === undefined) {
      throttle.failed(client);
      refuse(ctx, 401, options.message, challenge);
      return;
    }
    ctx.state.auth = kind;
    await next();
  };
}
