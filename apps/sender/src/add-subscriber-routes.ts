import type Router from "@koa/router";
import type { Outbox, Subscriber } from "@plant-store/sender";
import type { z } from "zod";
import { invalidInput, notFound } from "./admin-error.js";
import { AddSubscriberInputSchema, IdSchema, PortalLinkInputSchema } from "./admin-inputs.js";
import type { PortalAccess } from "./create-portal-access.js";
import { formatZodError } from "./format-zod-error.js";
import { principalOf } from "./principal.js";
import { readJsonBody } from "./read-json-body.js";

function parse<T extends z.ZodType>(schema: T, value: unknown, what: string, root?: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidInput(formatZodError(`Invalid ${what}`, result.error, root));
  return result.data;
}

/** A subscriber as the admin API shows it: never its token, which only `POST /subscribers` answers. */
export function presentSubscriber(subscriber: Subscriber) {
  return { id: subscriber.id, name: subscriber.name, createdAt: subscriber.createdAt.toISOString() };
}

/**
 * Who the caller is (`GET /me`, for the store's page and the portal), and the operator's subscriber
 * routes: add (answering the subscriber's token, once), list, show, remove, rotate its token, and sign
 * it a portal link. A subscriber's credential never reaches the latter (the app answers it 404).
 */
export function addSubscriberRoutes(admin: Router, options: { outbox: Outbox; portal?: PortalAccess }): void {
  const { outbox, portal } = options;
  const subscriberOf = async (raw: string | undefined) => {
    const subscriber = await outbox.getSubscriber(parse(IdSchema, raw, "id"));
    if (!subscriber) throw notFound("Subscriber");
    return subscriber;
  };

  admin.get("/me", (ctx) => {
    const principal = principalOf(ctx);
    ctx.body =
      principal.kind === "operator"
        ? { kind: "operator" }
        : { kind: "subscriber", subscriber: presentSubscriber(principal.subscriber) };
  });

  admin.get("/subscribers", async (ctx) => {
    ctx.body = { subscribers: (await outbox.listSubscribers()).map(presentSubscriber) };
  });
  admin.post("/subscribers", async (ctx) => {
    const input = parse(AddSubscriberInputSchema, await readJsonBody(ctx.req), "subscriber", "(body)");
    const { subscriber, token } = await outbox.addSubscriber(input);
    ctx.status = 201;
    // The token is shown here only: the store keeps its digest.
    ctx.body = { subscriber: presentSubscriber(subscriber), token };
  });
  admin.get("/subscribers/:id", async (ctx) => {
    ctx.body = { subscriber: presentSubscriber(await subscriberOf(ctx.params.id)) };
  });
  admin.delete("/subscribers/:id", async (ctx) => {
    if (!(await outbox.removeSubscriber(parse(IdSchema, ctx.params.id, "id")))) throw notFound("Subscriber");
    ctx.status = 204;
  });
  admin.post("/subscribers/:id/rotate-token", async (ctx) => {
    const subscriber = await subscriberOf(ctx.params.id);
    // Its portal links and sessions end first: a rotation is what an operator does when a credential
    // leaked, and a link issued before would otherwise still open the portal (issue 37).
    await portal?.revoke(subscriber.id);
    const token = await outbox.rotateSubscriberToken(subscriber.id);
    if (token === undefined) throw notFound("Subscriber");
    ctx.body = { subscriber: presentSubscriber(subscriber), token };
  });
  if (!portal) return;
  // The credential travels in the URL's fragment, which browsers never send to a server (so it is in
  // no access log); the portal page takes it out of the address bar and exchanges it, once, for a session.
  admin.post("/subscribers/:id/portal-links", async (ctx) => {
    const subscriber = await subscriberOf(ctx.params.id);
    const body = ctx.request.length ? await readJsonBody(ctx.req) : {};
    const input = parse(PortalLinkInputSchema, body, "portal link", "(body)");
    const { credential, expiresAt } = await portal.issueLink(subscriber.id, input.expiresInSeconds * 1000);
    ctx.status = 201;
    // Koa 3's ctx.origin is the Origin header; the link is for this store as the operator reached it.
    ctx.body = {
      url: `${ctx.protocol}://${ctx.host}/portal#${credential}`,
      expiresAt: expiresAt.toISOString(),
    };
  });
  // Every link issued and every portal session of the subscriber end now, on every process.
  admin.delete("/subscribers/:id/portal-links", async (ctx) => {
    const subscriber = await subscriberOf(ctx.params.id);
    ctx.body = { revoked: await portal.revoke(subscriber.id) };
  });
}
