import { createHash, timingSafeEqual } from "node:crypto";
import type { AuthThrottle } from "@plant-store/app-shell/http";
import { clientKey, refuseRequest } from "@plant-store/app-shell/http";
import type { EventPage, Outbox, SubscriberScope } from "@plant-store/sender";
import type { Context, Middleware } from "koa";
import { z } from "zod";
import { scopeOf } from "../access/principal-of.js";
import type { RouteTable } from "../access/route-table.js";
import { notFound, WebhookApiError } from "../errors.js";
import { IdSchema } from "../inputs/api-inputs.js";
import { parseInput } from "../inputs/parse-input.js";

export interface EventRoutesOptions {
  outbox: Outbox;
  /** The API's bearer guard: the operator's token or session, a subscriber's token or portal session. */
  guard: Middleware;
  /** The guard's throttle: a client it slows down is slowed down here too, before any token is compared. */
  throttle: AuthThrottle;
}

/** `GET /endpoints/{id}/events`: where to start and how many. */
export const ListEventsQuerySchema = z
  .strictObject({
    after: z.string().min(1).max(32).optional(),
    since: z.iso.datetime({ offset: true }).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
  })
  .refine((query) => query.after === undefined || query.since === undefined, {
    message: "give after or since, not both (since only starts a first listing)",
  });

type ListEventsQuery = z.infer<typeof ListEventsQuerySchema>;

const BEARER = /^Bearer ([\x21-\x7e]+)$/i;
const MISSING =
  "Missing token: the endpoint's, a subscriber's or an operator's (Authorization: Bearer <token>)";
const digest = (value: string) => createHash("sha256").update(value).digest();
/** Compared in constant time whatever the lengths (the digests are equal in length). */
const sameToken = (candidate: string, expected: string) =>
  timingSafeEqual(digest(candidate), digest(expected)) && expected.length > 0;

const presentPage = (page: EventPage) => ({
  events: page.events.map((event) => ({
    webhookId: event.webhookId,
    eventType: event.eventType,
    timestamp: event.timestamp.toISOString(),
    headers: event.headers,
    body: event.body,
  })),
  next: page.next,
});

/**
 * An endpoint's events, to catch up on what pushes missed (issue 40). Readable with the endpoint's own
 * bearer token (what its receiver already holds, and the only route it opens), its subscriber's token or
 * portal session, or the operator's.
 *
 * The route is `public` in the table because the handler does all of the checking itself: the endpoint's
 * token is a credential the shared guard does not know. It is compared first (constant time, never for a
 * client the throttle slows down); anything else goes through the same guard as every other route (401,
 * 429, a subscriber's scope). An endpoint's token on any other endpoint answers 404, as a missing
 * endpoint does, so it maps nothing.
 */
export function eventRoutes(options: EventRoutesOptions): RouteTable {
  const { outbox, guard, throttle } = options;

  /**
   * Answers the page, or 400/410; false when the endpoint is not found (with `token`: not with that
   * token), for the caller to answer.
   */
  const list = async (
    ctx: Context,
    id: number,
    query: ListEventsQuery,
    scope: SubscriberScope | undefined,
    token?: string,
  ): Promise<boolean> => {
    let page: EventPage | undefined;
    try {
      page = await outbox.listEvents(id, {
        limit: query.limit,
        ...(query.after !== undefined ? { after: query.after } : {}),
        ...(query.since !== undefined ? { since: new Date(query.since) } : {}),
        ...(scope ? { scope } : {}),
        ...(token !== undefined ? { token } : {}),
      });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === "ERR_INVALID_CURSOR")
        throw new WebhookApiError(
          400,
          "ERR_INVALID_INPUT",
          `Invalid query: after: ${(error as Error).message}`,
        );
      if (code === "ERR_EVENTS_EXPIRED") {
        const oldestCursor = (error as { oldestCursor: string }).oldestCursor;
        ctx.status = 410;
        ctx.body = { error: 410, message: (error as Error).message, oldestCursor };
        return true;
      }
      throw error;
    }
    if (!page) return false;
    ctx.set("Cache-Control", "no-store");
    ctx.body = presentPage(page);
    return true;
  };

  /** For the guard's callers: the input checked, then the page, or 404. */
  const listOrNotFound = async (ctx: Context, scope: SubscriberScope | undefined): Promise<void> => {
    const id = parseInput(IdSchema, ctx.params.id, "id");
    const query = parseInput(ListEventsQuerySchema, ctx.query, "query", "(query)");
    if (!(await list(ctx, id, query, scope))) throw notFound("Endpoint");
  };

  /** Whether `candidate` is the bearer token of some endpoint: read only for a credential the guard refused. */
  const isSomeEndpointsToken = async (candidate: string): Promise<boolean> => {
    let found = false;
    for (const endpoint of await outbox.listEndpoints())
      if (endpoint.token !== undefined && sameToken(candidate, endpoint.token)) found = true;
    return found;
  };

  return [
    {
      method: "GET",
      path: "/endpoints/:id/events",
      // Public: the handler checks every credential itself (see above).
      access: "public",
      handler: async (ctx) => {
        const header = ctx.get("Authorization");
        if (header === "") {
          refuseRequest(ctx, 401, MISSING, { "WWW-Authenticate": 'Bearer realm="webhooks"' });
          return;
        }
        const candidate = BEARER.exec(header)?.[1];
        const id = IdSchema.safeParse(ctx.params.id);
        if (
          candidate !== undefined &&
          id.success &&
          throttle.retryAfterMs(clientKey(ctx.req.socket.remoteAddress)) === 0
        ) {
          // A valid query is listed with the token as its condition: the listing compares it as it reads
          // the endpoint, one read of it a page (a pulling receiver's every request). Input the listing
          // would refuse before reading anything is answered only to the endpoint's holder, as before.
          const query = ListEventsQuerySchema.safeParse(ctx.query);
          let refused = !query.success;
          if (query.success) {
            try {
              if (await list(ctx, id.data, query.data, undefined, candidate)) return;
            } catch (error) {
              // Not a cursor: refused before the endpoint (or the token) was read.
              if (!(error instanceof WebhookApiError && error.code === "ERR_INVALID_INPUT")) throw error;
              refused = true;
            }
          }
          if (refused) {
            const endpoint = await outbox.getEndpoint(id.data);
            if (endpoint?.token !== undefined && sameToken(candidate, endpoint.token))
              return listOrNotFound(ctx, undefined);
          }
        }
        let passed = false;
        await guard(ctx, async () => {
          passed = true;
          await listOrNotFound(ctx, scopeOf(ctx));
        });
        // Another endpoint's token: refused by the guard (and counted by the throttle), answered as a
        // missing endpoint rather than a wrong credential.
        if (
          !passed &&
          ctx.status === 401 &&
          candidate !== undefined &&
          (await isSomeEndpointsToken(candidate))
        ) {
          ctx.remove("WWW-Authenticate");
          throw notFound("Endpoint");
        }
      },
    },
  ];
}
