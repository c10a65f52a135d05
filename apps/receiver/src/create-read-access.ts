import { createHash, timingSafeEqual } from "node:crypto";
import type { Router } from "@koa/router";
import {
  addSessionRoutes,
  type BrowserSessions,
  createAuthThrottle,
  createBearerGuard,
  createBrowserSessions,
  refuseRequest,
  type WarningLogger,
} from "@plant-store/app-shell";
import type { Middleware } from "koa";

export interface ReadAccessOptions {
  /** Where refused credentials are logged, sampled. */
  logger?: WarningLogger;
  /** Counts each refusal (a Prometheus counter's `inc`). */
  count?: (outcome: "wrong" | "throttled") => void;
  /** The live page's sessions and sign-in codes; default, sessions signed for the read tokens. */
  sessions?: BrowserSessions;
}

/** Who may read, and how a browser signs in. */
export interface ReadAccess {
  /**
   * Guards a read route (`/plants`, `/deliveries`, `/events`, `/metrics`): `Authorization: Bearer` with
   * a read token (scripts, Prometheus) or a live page's session; 403 when the read side is off.
   */
  guard: Middleware;
  /** Lets a request through only when the read side is on (the page itself: static, no data). */
  whenOn: Middleware;
  /** `POST /login-codes`, `POST /sessions`, `DELETE /sessions/current` (see `addSessionRoutes`). */
  addSessionRoutes(router: Router): void;
}

const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * The read side's access. No read token ever travels in a URL or sits in a cookie: the live page signs
 * in with a single-use code from a `/#code=` link (which `POST /login-codes` issues for a read token)
 * or with the read token typed into its form, and gets a session it keeps in its tab and sends as a
 * bearer token. Before, `/?read_token=<token>` stayed in the browser's history, and the cookie it set
 * was the token itself (base64url), sent by browsers to every port of the host. Every configured
 * token is compared, in constant time, on digests of equal length. Wrong credentials are throttled
 * per client (429 after a burst) and logged sampled, where they used to be neither.
 */
export function createReadAccess(readTokens: readonly string[], options: ReadAccessOptions = {}): ReadAccess {
  const expected = readTokens.map(digest);
  const acceptsToken = (candidate: string) => {
    if (candidate === "") return false;
    const given = digest(candidate);
    let match = false;
    for (const token of expected) match = timingSafeEqual(given, token) || match;
    return match;
  };
  const sessions = options.sessions ?? createBrowserSessions({ tokens: readTokens });
  const throttle = createAuthThrottle({
    credential: "read token",
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.count ? { count: options.count } : {}),
  });
  const bearer = createBearerGuard({
    acceptsToken,
    sessions,
    throttle,
    realm: "plant-receiver read side",
    message:
      "Read token required: send Authorization: Bearer <read token>, or open the live page (/) and sign in there",
  });

  const whenOn: Middleware = async (ctx, next) => {
    ctx.set({ "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" });
    if (expected.length === 0) {
      refuseRequest(
        ctx,
        403,
        "The read side is off: start the receiver with --read-token to use /, /plants, /deliveries, /events and /metrics",
      );
      return;
    }
    await next();
  };
  const guard: Middleware = (ctx, next) => whenOn(ctx, () => bearer(ctx, next));

  return {
    guard,
    whenOn,
    addSessionRoutes(router) {
      addSessionRoutes(router, {
        sessions,
        throttle,
        acceptsToken,
        credential: "read token",
        guard: bearer,
        before: whenOn,
      });
    },
  };
}
