import type Router from "@koa/router";
import type { Outbox, Subscriber } from "@plant-store/sender";
import type { z } from "zod";
import { invalidInput, notFound } from "./admin-error.js";
import { AddSubscriberInputSchema, IdSchema, PortalLinkInputSchema } from "./admin-inputs.js";
import type { PortalLinks } from "./create-portal-links.js";
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
export function addSubscriberRoutes(
  admin: Router,
  options: { outbox: Outbox; portalLinks: PortalLinks },
): void {
  const { outbox, portalLinks } = options;
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
    const token = await outbox.rotateSubscriberToken(subscriber.id);
    if (token === undefined) throw notFound("Subscriber");
    ctx.body = { subscriber: presentSubscriber(subscriber), token };
  });
  // The credential travels in the URL's fragment, which browsers never send to a server (so it is in
  // no access log); the portal page moves it into its tab's storage and out of the address bar.
  admin.post("/subscribers/:id/portal-links", async (ctx) => {
    const subscriber = await subscriberOf(ctx.params.id);
    const body = ctx.request.length ? await readJsonBody(ctx.req) : {};
    const input = parse(PortalLinkInputSchema, body, "portal link", "(body)");
    const { credential, expiresAt } = portalLinks.issue(subscriber.id, input.expiresInSeconds * 1000);
    ctx.status = 201;
    // Not ctx.origin: since Koa 3 that is the request's Origin header (null from a script or curl).
    ctx.body = {
      url: `${ctx.protocol}://${ctx.host}/portal#${credential}`,
      expiresAt: expiresAt.toISOString(),
    };
  });
}
