import type Router from "@koa/router";
import { type AuthThrottle, refuseRequest, refuseWhileThrottled } from "@plant-store/app-shell";
import { z } from "zod";
import { invalidInput } from "./admin-error.js";
import type { PortalAccess } from "./create-portal-access.js";
import { formatZodError } from "./format-zod-error.js";
import { principalOf } from "./principal.js";
import { readJsonBody } from "./read-json-body.js";

const ExchangeInputSchema = z.strictObject({ link: z.string().max(200) });

/**
 * The portal page's way in and out (issue 37):
 *
 * - `POST /portal-sessions` `{"link": "psl_…"}` (no bearer): spends the link, once, on a short session,
 *   201. A link that is unknown, used, expired or revoked is a 401 and counts against the client like a
 *   wrong credential.
 * - `DELETE /portal-sessions/current` (the session as bearer): signs out, ending the session in the
 *   database, so no process takes it any more, 204.
 */
export function addPortalRoutes(
  router: Router,
  admin: Router,
  options: { portal: PortalAccess; throttle: AuthThrottle },
): void {
  const { portal, throttle } = options;

  router.post("/portal-sessions", async (ctx) => {
    const client = refuseWhileThrottled(ctx, throttle);
    if (client === undefined) return;
    const parsed = ExchangeInputSchema.safeParse(await readJsonBody(ctx.req));
    if (!parsed.success) throw invalidInput(formatZodError("Invalid portal sign-in", parsed.error, "(body)"));
    const session = await portal.exchange(parsed.data.link);
    if (session === undefined) {
      throttle.failed(client);
      refuseRequest(
        ctx,
        401,
        "This portal link was already used, has expired or was revoked: ask the store for a new one",
      );
      return;
    }
    ctx.status = 201;
    ctx.set("Cache-Control", "no-store");
    ctx.body = { session: session.credential, expiresAt: session.expiresAt.toISOString() };
  });

  admin.delete("/portal-sessions/current", async (ctx) => {
    const token = /^Bearer (.+)$/i.exec(ctx.get("Authorization"))?.[1];
    const signedIn = principalOf(ctx).kind === "subscriber" && token !== undefined;
    if (!signedIn || !(await portal.endSession(token))) {
      refuseRequest(ctx, 403, "Only a portal session signs out: send it as Authorization: Bearer <session>");
      return;
    }
    ctx.status = 204;
  });
}
