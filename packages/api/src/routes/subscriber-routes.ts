import type { Outbox } from "@plant-store/sender";
import { principalOf } from "../access/principal-of.js";
import type { RouteTable } from "../access/route-table.js";
import { mountPointOf } from "../adapters/mount-prefix.js";
import { notFound } from "../errors.js";
import { AddSubscriberInputSchema, IdSchema, PortalLinkInputSchema } from "../inputs/api-inputs.js";
import { BODY, parseInput } from "../inputs/parse-input.js";
import { readJsonBody } from "../inputs/read-json-body.js";
import type { PortalAccess } from "../portal/create-portal-access.js";
import { presentSubscriber } from "../present.js";

/**
 * Who the caller is (`GET /me`, for the store's page and the portal), and the operator's subscriber
 * routes: add (answering the subscriber's token, once), list, show, remove, rotate its token, and, with
 * the portal, sign it a portal link or revoke its links.
 */
export function subscriberRoutes(options: { outbox: Outbox; portal?: PortalAccess | undefined }): RouteTable {
  const { outbox, portal } = options;
  const subscriberOf = async (raw: string | undefined) => {
    const subscriber = await outbox.getSubscriber(parseInput(IdSchema, raw, "id"));
    if (!subscriber) throw notFound("Subscriber");
    return subscriber;
  };
  const routes: RouteTable = [
    {
      method: "GET",
      path: "/me",
      access: "subscriber-or-operator",
      handler: (ctx) => {
        const principal = principalOf(ctx);
        ctx.body =
          principal.kind === "operator"
            ? { kind: "operator" }
            : { kind: "subscriber", subscriber: presentSubscriber(principal.subscriber) };
      },
    },
    {
      method: "GET",
      path: "/subscribers",
      access: "operator",
      handler: async (ctx) => {
        ctx.body = { subscribers: (await outbox.listSubscribers()).map(presentSubscriber) };
      },
    },
    {
      method: "POST",
      path: "/subscribers",
      access: "operator",
      handler: async (ctx) => {
        const input = parseInput(AddSubscriberInputSchema, await readJsonBody(ctx.req), "subscriber", BODY);
        const { subscriber, token } = await outbox.addSubscriber(input);
        ctx.status = 201;
        // The token is shown here only: the store keeps its digest.
        ctx.body = { subscriber: presentSubscriber(subscriber), token };
      },
    },
    {
      method: "GET",
      path: "/subscribers/:id",
      access: "operator",
      handler: async (ctx) => {
        ctx.body = { subscriber: presentSubscriber(await subscriberOf(ctx.params.id)) };
      },
    },
    {
      method: "DELETE",
      path: "/subscribers/:id",
      access: "operator",
      handler: async (ctx) => {
        if (!(await outbox.removeSubscriber(parseInput(IdSchema, ctx.params.id, "id"))))
          throw notFound("Subscriber");
        ctx.status = 204;
      },
    },
    {
      method: "POST",
      path: "/subscribers/:id/rotate-token",
      access: "operator",
      handler: async (ctx) => {
        const subscriber = await subscriberOf(ctx.params.id);
        // Its portal links and sessions end first: a rotation is what an operator does when a credential
        // leaked, and a link issued before would otherwise still open the portal (issue 37).
        await portal?.revoke(subscriber.id);
        const token = await outbox.rotateSubscriberToken(subscriber.id);
        if (token === undefined) throw notFound("Subscriber");
        ctx.body = { subscriber: presentSubscriber(subscriber), token };
      },
    },
  ];
  if (!portal) return routes;
  return [
    ...routes,
    // The credential travels in the URL's fragment, which browsers never send to a server (so it is in
    // no access log); the portal page takes it out of the address bar and exchanges it, once, for a session.
    {
      method: "POST",
      path: "/subscribers/:id/portal-links",
      access: "operator",
      handler: async (ctx) => {
        const subscriber = await subscriberOf(ctx.params.id);
        const body = ctx.request.length ? await readJsonBody(ctx.req) : {};
        const input = parseInput(PortalLinkInputSchema, body, "portal link", BODY);
        const { credential, expiresAt } = await portal.issueLink(
          subscriber.id,
          input.expiresInSeconds * 1000,
        );
        ctx.status = 201;
        // Koa 3's ctx.origin is the Origin header; the link is for this store as the operator reached it:
        // a fetch request's own URL (which may come with no Host header), and the path the API is mounted
        // under, where the portal is served.
        const mount = mountPointOf(ctx.req);
        ctx.body = {
          url: `${mount.origin ?? `${ctx.protocol}://${ctx.host}`}${mount.prefix}/portal#${credential}`,
          expiresAt: expiresAt.toISOString(),
        };
      },
    },
    // Every link issued and every portal session of the subscriber end now, on every process.
    {
      method: "DELETE",
      path: "/subscribers/:id/portal-links",
      access: "operator",
      handler: async (ctx) => {
        const subscriber = await subscriberOf(ctx.params.id);
        ctx.body = { revoked: await portal.revoke(subscriber.id) };
      },
    },
  ];
}
