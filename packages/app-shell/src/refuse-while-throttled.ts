import type { Context } from "koa";
import { clientKey } from "./client-key.js";
import type { AuthThrottle } from "./create-auth-throttle.js";
import { refuseRequest } from "./refuse-request.js";

/**
 * For a route that takes a credential: while the client's address is throttled for wrong ones, answers
 * 429 with `Retry-After` and returns `undefined`; otherwise returns the client's key, with which the
 * route reports a wrong credential (`throttle.failed(client)`).
 */
export function refuseWhileThrottled(ctx: Context, throttle: AuthThrottle): string | undefined {
  const client = clientKey(ctx.req.socket.remoteAddress);
  const waitMs = throttle.retryAfterMs(client);
  if (waitMs <= 0) return client;
  throttle.throttled(client);
  const seconds = Math.ceil(waitMs / 1000);
  refuseRequest(ctx, 429, `Too many wrong credentials from your address; try again in ${seconds} s`, {
    "Retry-After": String(seconds),
  });
  return undefined;
}
