import { type AuthThrottle, refuseRequest, refuseWhileThrottled } from "@plant-store/app-shell/http";
import { z } from "zod";
import { principalOf } from "../access/principal-of.js";
import type { RouteTable } from "../access/route-table.js";
import { BODY, parseInput } from "../inputs/parse-input.js";
import { readJsonBody } from "../inputs/read-json-body.js";
import type { PortalAccess } from "../portal/create-portal-access.js";

const ExchangeInputSchema = z.strictObject({ link: z.string().max(200) });

/**
 * The portal page's way in and out (issue 37):
 *
 * - `POST /portal-sessions` `{"link": "psl_…"}` (no bearer): spends the link, once, on a short session,
 *   201. A link that is unknown, used, expired or revoked is a 401 and counts against the client like a
 *   wrong credential.
 * - `DELETE /portal-sessions/current` (the session as bearer): signs out, ending the session in the
 *   database, so no process takes it any more, 204; any other credential is answered 403.
 */
export function portalRoutes(options: { portal: PortalAccess; throttle: AuthThrottle }): RouteTable {
  const { portal, throttle } = options;
  return [
    {
      method: "POST",
      path: "/portal-sessions",
      access: "public",
      handler: async (ctx) => {
        const client = refuseWhileThrottled(ctx, throttle);
        if (client === undefined) return;
        const input = parseInput(ExchangeInputSchema, await readJsonBody(ctx.req), "portal sign-in", BODY);
        const session = await portal.exchange(input.link);
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
      },
    },
    {
      method: "DELETE",
      path: "/portal-sessions/current",
      access: "subscriber-or-operator",
      handler: async (ctx) => {
        const token = /^Bearer (.+)$/i.exec(ctx.get("Authorization"))?.[1];
        const signedIn = principalOf(ctx).kind === "subscriber" && token !== undefined;
        if (!signedIn || !(await portal.endSession(token))) {
          refuseRequest(
            ctx,
            403,
            "Only a portal session signs out: send it as Authorization: Bearer <session>",
          );
          return;
        }
        ctx.status = 204;
      },
    },
  ];
}
