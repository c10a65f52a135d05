import type { Context } from "koa";

/**
 * Refuses `ctx` with the contract's Error body, and closes the connection after the answer: a refused
 * client has no business keeping it, and one still sending a body would otherwise hold it until the
 * request timeout (a slow body without a token got its 401 at once, and its socket stayed open).
 * Answered here rather than thrown, so the error boundary does not log one line per refusal: the
 * throttle counts and samples them.
 */
export function refuseRequest(
  ctx: Context,
  status: 401 | 403 | 429,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  ctx.status = status;
  ctx.set({ "Cache-Control": "no-store", Connection: "close", ...headers });
  ctx.body = { error: status, message };
}
