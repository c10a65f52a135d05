import { createHash, timingSafeEqual } from "node:crypto";
import type { Context, Next } from "koa";

/** The cookie a browser gets from `/?read_token=…`, so the page's own requests need no token. */
export const READ_COOKIE = "plant_receiver_read";
/** The query parameter of the one-click link to the live page (the demo prints one). */
export const READ_TOKEN_PARAM = "read_token";

const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * Guards the read side (`/`, `/plants`, `/deliveries`, `/events`, `/metrics`): the request must carry one of
 * `readTokens` as `Authorization: Bearer …` (scripts, Prometheus) or in the `plant_receiver_read`
 * cookie (the live page). `GET /?read_token=…` checks the token, sets the cookie and redirects to
 * `/`, so the token leaves the address bar and history. Every configured token is compared, in
 * constant time, on digests of equal length. With no read token configured the read side is off.
 */
export function createReadAccess(readTokens: readonly string[]) {
  const expected = readTokens.map(digest);
  const accepted = (candidate: string | undefined) => {
    if (candidate === undefined || candidate === "") return false;
    const given = digest(candidate);
    let match = false;
    for (const token of expected) match = timingSafeEqual(given, token) || match;
    return match;
  };
  const bearer = (ctx: Context) => /^Bearer ([\x21-\x7e]+)$/i.exec(ctx.get("Authorization"))?.[1];

  return async (ctx: Context, next: Next): Promise<void> => {
    ctx.set("Cache-Control", "no-store");
    if (expected.length === 0) {
      ctx.status = 403;
      ctx.body = {
        error: 403,
        message:
          "The read side is off: start the receiver with --read-token to use /, /plants, /deliveries, /events and /metrics",
      };
      return;
    }
    const fromQuery = ctx.path === "/" ? ctx.query[READ_TOKEN_PARAM] : undefined;
    if (typeof fromQuery === "string" && accepted(fromQuery)) {
      // base64url: a token may hold characters a cookie value cannot (`;`, `"`, `\`).
      ctx.cookies.set(READ_COOKIE, Buffer.from(fromQuery).toString("base64url"), {
        httpOnly: true,
        sameSite: "lax",
        path: "/",
        overwrite: true,
      });
      ctx.status = 303;
      ctx.redirect("/");
      return;
    }
    const cookie = ctx.cookies.get(READ_COOKIE);
    const fromCookie = cookie === undefined ? undefined : Buffer.from(cookie, "base64url").toString();
    if (fromQuery === undefined && (accepted(bearer(ctx)) || accepted(fromCookie))) {
      await next();
      return;
    }
    ctx.status = 401;
    ctx.set("WWW-Authenticate", 'Bearer realm="plant-receiver read side"');
    ctx.body = {
      error: 401,
      message: `Read token required: send Authorization: Bearer <read token>, or open /?${READ_TOKEN_PARAM}=<read token> in a browser`,
    };
  };
}
