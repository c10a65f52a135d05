import Router from "@koa/router";
import {
  type AuthThrottle,
  addSessionRoutes,
  type BrowserSessions,
  createAuthThrottle,
  createBearerGuard,
  createBrowserSessions,
  createErrorBoundary,
  mountRouter,
} from "@plant-store/app-shell";
import {
  createDeliveryClient,
  createSsrfGuard,
  type Endpoint,
  EndpointNotFoundError,
  type EndpointVerification,
  type Outbox,
  SsrfBlockedError,
  type SsrfTargetEndpoint,
  SUBSCRIBER_TOKEN_PREFIX,
  verifyEndpoint,
} from "@plant-store/sender";
import { generateWebhookSecret, NEW_PLANT_EVENT } from "@plant-store/types";
import Koa from "koa";
import type { Logger } from "pino";
import { Counter, type Registry } from "prom-client";
import type { z } from "zod";
import { addListenRoutes } from "./add-listen-routes.js";
import { addOperatorRoutes } from "./add-operator-routes.js";
import { addPortalRoutes } from "./add-portal-routes.js";
import { addSubscriberRoutes } from "./add-subscriber-routes.js";
import { AdminError, invalidInput, notFound } from "./admin-error.js";
import {
  AddEndpointInputSchema,
  AddPlantInputSchema,
  IdempotencyKeySchema,
  IdSchema,
  ListDeliveriesQuerySchema,
  ReplayInputSchema,
  UpdateEndpointInputSchema,
} from "./admin-inputs.js";
import { createHandshakeThrottle, type HandshakeThrottle } from "./create-handshake-throttle.js";
import { isRelayShaped, type ListenRelay } from "./create-listen-relay.js";
import { PORTAL_SESSION_PREFIX, type PortalAccess } from "./create-portal-access.js";
import { checkEndpointCaps, type EndpointCaps, resolveEndpointCaps } from "./endpoint-caps.js";
import { formatZodError } from "./format-zod-error.js";
import { isAdminToken } from "./is-admin-token.js";
import type { PlantCatalog } from "./plant-catalog.js";
import { PORTAL_PAGE_HEADERS, PORTAL_PAGE_HTML } from "./portal-page-html.js";
import {
  presentAttempt,
  presentDeliveries,
  presentEndpoint,
  presentPlant,
  presentThrottledVerification,
  presentVerification,
} from "./present.js";
import { type Principal, principalOf, scopeOf } from "./principal.js";
import { readJsonBody } from "./read-json-body.js";
import { storageUnavailableCode } from "./storage-unavailable-code.js";
import { STORE_PAGE_HEADERS, STORE_PAGE_HTML } from "./store-page-html.js";
import { isSubscriberRoute } from "./subscriber-routes.js";

export interface AdminAppOptions {
  outbox: Outbox;
  plants: PlantCatalog;
  adminToken: string;
  registry: Registry;
  logger?: Logger;
  /**
   * Refuses an endpoint URL before it is stored (the SSRF guard's `check`). Only a refusal counts:
   * a name that does not resolve yet is accepted, and checked again at every delivery.
   */
  checkTarget?: (url: string, endpoint: SsrfTargetEndpoint) => Promise<unknown>;
  /** Called after writes that create due work, so this process's worker starts at once. */
  wake?: () => void;
  /** The page's sessions and sign-in codes; default, sessions signed for the admin token. */
  sessions?: BrowserSessions;
  /** Slows down clients presenting wrong credentials; default 20 at once, then one a second. */
  throttle?: AuthThrottle;
  /**
   * What each owner may hold through `POST`/`PATCH /endpoints`, counted per owner: the operator's own
   * (default OPERATOR_ENDPOINT_CAPS: 1,000) and each subscriber's (default SUBSCRIBER_ENDPOINT_CAPS: 20).
   */
  endpointCaps?: { operator?: Partial<EndpointCaps>; subscriber?: Partial<EndpointCaps> };
  /**
   * The verification handshake (issue 25): proves a subscriber's endpoint wants these webhooks. Called
   * when a subscriber adds an endpoint and on `POST /endpoints/{id}/verify`. Default: the sender's
   * `verifyEndpoint` with a client and SSRF guard of its own (public addresses only); `serve` passes
   * the worker's client and guard, so the handshake goes where deliveries may.
   */
  verifyEndpoint?: (endpoint: Endpoint) => Promise<EndpointVerification>;
  /**
   * Bounds handshakes per endpoint and per owner (`HANDSHAKE_LIMITS`: 3 a minute to one endpoint, 20
   * a minute to one owner's); past it, `POST /endpoints/{id}/verify` answers 429 with `Retry-After`.
   */
  handshakeThrottle?: HandshakeThrottle;
  /**
   * Subscribers' portal links and the sessions they are exchanged for (`createPortalAccess` on the
   * store's `portalCredentials`); without it the portal's routes are not there.
   */
  portal?: PortalAccess;
  /** `plant-store listen`'s sessions and relay; without it the listen routes are not there. */
  listen?: { relay: ListenRelay; timeoutMs: number };
}

/**
 * What anyone may ask for without the admin credential: the static page, health and metrics, signing
 * in, and `listen`'s relay (its own check: the temporary endpoint's bearer token, in constant time).
 */
function isPublic(method: string, path: string): boolean {
  if (path === "/healthz" || path === "/" || path === "/portal") return true;
  if (path.startsWith("/relay/")) return true;
  return (path === "/sessions" || path === "/portal-sessions") && method === "POST";
}

/** `root` names a problem of the whole value: `(body)` for a JSON body; a header or an id has no fields. */
function parse<T extends z.ZodType>(schema: T, value: unknown, what: string, root?: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw invalidInput(formatZodError(`Invalid ${what}`, result.error, root));
  return result.data;
}
const BODY = "(body)";

/** The queue's refusals the API answers with their own message, by the stable `code` each error carries. */
const QUEUE_ERROR_STATUS: Readonly<Record<string, number>> = {
  ERR_INVALID_ENDPOINT: 400,
  // The schema refuses what the queue does first; this keeps any later rule of the queue's a 400, not a 500.
  ERR_INVALID_SUBSCRIBER: 400,
  ERR_IDEMPOTENCY_CONFLICT: 409,
};

/** What "send an example" sends: a New Plant no catalog holds (its id is the contract's first). */
const EXAMPLE_NEW_PLANT = {
  eventType: NEW_PLANT_EVENT,
  payload: { id: 1, name: "Example plant", tag: "example" },
};

/**
 * The Plant Store's admin API (documented in apps/sender/admin-openapi.json). The first middleware is the
 * error boundary: errors with a status and code become `{error, message}` with their status; anything
 * else a generic 500 and a log line, never a stack or a secret.
 */
export function createAdminApp(options: AdminAppOptions): Koa {
  const { outbox, plants, logger } = options;
  const wake = options.wake ?? (() => undefined);
  const app = new Koa();
  const router = new Router();
  const refusals = new Counter({
    name: "plant_store_admin_auth_refusals_total",
    help: "Admin API requests refused for their credential: wrong (401) or from a client slowed down (429)",
    labelNames: ["outcome"] as const,
    registers: [options.registry],
  });
  const sessions = options.sessions ?? createBrowserSessions({ tokens: [options.adminToken] });
  const throttle =
    options.throttle ??
    createAuthThrottle({
      credential: "admin token",
      ...(logger ? { logger } : {}),
      count: (outcome) => refusals.inc({ outcome }),
    });
  const acceptsToken = (candidate: string) => isAdminToken(candidate, options.adminToken);
  const caps = resolveEndpointCaps(options.endpointCaps);
  const capsOf = (subscriberId: number | null) => (subscriberId === null ? caps.operator : caps.subscriber);
  const { portal } = options;
  /**
   * A subscriber's token or portal session, resolved to its subscriber (which must still exist). A portal
   * link is no bearer: it is exchanged once (`POST /portal-sessions`), and the session is what is sent.
   */
  const resolveSubscriber = async (candidate: string): Promise<Principal | undefined> => {
    let subscriber: Awaited<ReturnType<Outbox["getSubscriber"]>>;
    if (candidate.startsWith(SUBSCRIBER_TOKEN_PREFIX))
      subscriber = await outbox.authenticateSubscriber(candidate);
    else if (portal && candidate.startsWith(PORTAL_SESSION_PREFIX)) {
      const id = await portal.sessionSubscriber(candidate);
      subscriber = id === undefined ? undefined : await outbox.getSubscriber(id);
    }
    return subscriber ? { kind: "subscriber", subscriber } : undefined;
  };
  /**
   * The SSRF policy, the same for a new endpoint's URL and a changed one: only a refusal counts (a name
   * that does not resolve yet is accepted, and checked again at every delivery).
   */
  const checkUrl = async (url: string, what: string, endpoint: SsrfTargetEndpoint): Promise<void> => {
    // Only `listen` makes endpoints at the store's own relay route (issue 37: a subscriber's there passed
    // the listen exception); refused by shape, on any host, before any guard is asked.
    if (isRelayShaped(url))
      throw invalidInput(
        `Invalid ${what}: url: must not be a listen relay URL (/relay/lst_…): only plant-store listen makes those`,
      );
    if (!options.checkTarget) return;
    try {
      await options.checkTarget(url, endpoint);
    } catch (error) {
      if (error instanceof SsrfBlockedError) throw invalidInput(`Invalid ${what}: url: ${error.message}`);
    }
  };
  const handshakeThrottle = options.handshakeThrottle ?? createHandshakeThrottle();
  /**
   * Runs the handshake and records a success; a subscriber's endpoint only (the operator's need none).
   * Throws a 429 (`Retry-After`) when the endpoint's or its owner's handshakes are used up: nothing is sent.
   */
  let handshake = options.verifyEndpoint;
  const verify = async (
    endpoint: Endpoint,
  ): Promise<{ endpoint: Endpoint; verification: EndpointVerification }> => {
    const owner = endpoint.subscriberId === null ? "operator" : `subscriber ${endpoint.subscriberId}`;
    const allowed = handshakeThrottle.take(endpoint.id, owner);
    if (!allowed.allowed)
      throw new AdminError(
        429,
        "ERR_TOO_MANY_HANDSHAKES",
        allowed.limit === "endpoint"
          ? `Too many handshakes to endpoint ${endpoint.id} for now: try again in ${allowed.retryAfterSeconds} s`
          : `Too many handshakes to this owner's endpoints for now: try again in ${allowed.retryAfterSeconds} s`,
        { "retry-after": String(allowed.retryAfterSeconds) },
      );
    if (!handshake) {
      const defaults = { client: createDeliveryClient(), ssrfGuard: createSsrfGuard() };
      handshake = (target) => verifyEndpoint(target, defaults);
    }
    const verification = await handshake(endpoint);
    logger?.info(
      { event: "endpoint.verification", endpointId: endpoint.id, ...presentVerification(verification) },
      "endpoint verification",
    );
    if (!verification.verified || endpoint.subscriberId === null) return { endpoint, verification };
    // Only if its URL is still the one that answered: a URL changed meanwhile stays unverified.
    const marked = await outbox.markEndpointVerified(
      endpoint.id,
      { subscriberId: endpoint.subscriberId },
      endpoint.url,
    );
    if (!marked)
      return {
        endpoint,
        verification: {
          verified: false,
          reason: "url-changed",
          message: "The endpoint's URL changed while the handshake ran; verify it again",
          webhookId: verification.webhookId,
          durationMs: verification.durationMs,
        },
      };
    return { endpoint: marked, verification };
  };

  app.use(
    createErrorBoundary({
      ...(logger ? { logger } : {}),
      // A database that cannot read or write right now: the request changed nothing, try again.
      classify: (error) => {
        // What the queue refuses, by its errors' codes (the inputs' schemas are meant to refuse most first).
        const refused = QUEUE_ERROR_STATUS[(error as { code?: unknown } | undefined)?.code as string];
        if (refused !== undefined && error instanceof Error)
          return { status: refused, message: error.message };
        const storage = storageUnavailableCode(error);
        if (storage === undefined) return undefined;
        return {
          status: 503,
          message: `The store's database is unavailable (${storage}); try again`,
          headers: { "retry-after": "5" },
        };
      },
    }),
  );

  router.get("/healthz", (ctx) => {
    ctx.body = { ok: true };
  });
  // The store page holds no data: it signs in (POST /sessions) and calls the routes below with its session.
  router.get("/", (ctx) => {
    ctx.set(STORE_PAGE_HEADERS);
    ctx.body = STORE_PAGE_HTML;
  });
  // A subscriber's portal, static too: its credential stays in the link's fragment, which is never sent.
  router.get("/portal", (ctx) => {
    ctx.set(PORTAL_PAGE_HEADERS);
    ctx.body = PORTAL_PAGE_HTML;
  });

  // Every path but the public ones needs the token or a page's session, checked before any router
  // looks at it: a wrong method or an unknown path without one is a 401 like any other, where the
  // routers' 405 (with its Allow list) and 404 used to map the API for anyone.
  const guard = createBearerGuard({
    acceptsToken,
    sessions,
    throttle,
    realm: "plant-store admin",
    message: "Missing or wrong admin token (Authorization: Bearer <token>)",
    resolveOther: resolveSubscriber,
  });
  app.use((ctx, next) => (isPublic(ctx.method, ctx.path) ? next() : guard(ctx, next)));
  // A subscriber is answered only on its routes; anything else is a path that does not exist for it.
  app.use((ctx, next) => {
    if (principalOf(ctx).kind === "subscriber" && !isPublic(ctx.method, ctx.path))
      if (!isSubscriberRoute(ctx.method, ctx.path)) throw notFound("Route");
    return next();
  });

  const admin = new Router();
  addSessionRoutes(admin, { sessions, throttle, acceptsToken, credential: "admin token" });
  // Prometheus scrapes with the admin token (`authorization: { credentials: ... }`): the figures name
  // every subscriber's endpoints, so they are not for anyone who asks.
  admin.get("/metrics", async (ctx) => {
    ctx.type = options.registry.contentType;
    ctx.body = await options.registry.metrics();
  });

  admin.get("/plants", async (ctx) => {
    ctx.body = { plants: (await plants.list(1000)).map(presentPlant) };
  });
  // With an Idempotency-Key, a client retrying after a timeout gets the first answer again (same plant,
  // nothing queued twice); the same key with another body is a 409.
  admin.post("/plants", async (ctx) => {
    // Node strips the spaces around a header's value: a key of spaces only arrives as "", which is a key
    // sent (and refused), not the same as no header at all.
    const header = ctx.req.headers["idempotency-key"];
    if (header === "")
      throw invalidInput(
        "Invalid Idempotency-Key header: must not be empty or only spaces; send no header for no key",
      );
    const key =
      header === undefined ? undefined : parse(IdempotencyKeySchema, header, "Idempotency-Key header");
    // Plants added with one Ordering-Key reach each endpoint in the order they were added, one at a time.
    const ordering = ctx.req.headers["ordering-key"];
    if (ordering === "")
      throw invalidInput(
        "Invalid Ordering-Key header: must not be empty or only spaces; send no header for no key",
      );
    const orderingKey =
      ordering === undefined ? undefined : parse(IdempotencyKeySchema, ordering, "Ordering-Key header");
    const input = parse(AddPlantInputSchema, await readJsonBody(ctx.req), "plant", BODY);
    const { plant, queued, replayed } = await plants.add(
      { ...input, ...(orderingKey === undefined ? {} : { orderingKey }) },
      key,
    );
    if (!replayed) wake();
    ctx.status = 201;
    if (replayed) ctx.set("Idempotency-Replayed", "true");
    ctx.body = { plant: presentPlant(plant), queued };
  });

  admin.get("/endpoints", async (ctx) => {
    ctx.body = { endpoints: (await outbox.listEndpoints(scopeOf(ctx))).map(presentEndpoint) };
  });
  admin.post("/endpoints", async (ctx) => {
    const input = parse(AddEndpointInputSchema, await readJsonBody(ctx.req), "endpoint", BODY);
    const scope = scopeOf(ctx);
    // The caps are per owner: one subscriber filling its own does not lock the others (or the operator)
    // out, and the operator's counts the operator's endpoints only.
    const owner = scope?.subscriberId ?? null;
    await checkEndpointCaps(outbox, owner, capsOf(owner), {
      adds: true,
      rateLimited: input.rateLimit !== undefined && input.rateLimit !== null,
      url: input.url,
    });
    await checkUrl(input.url, "endpoint", { subscriberId: owner });
    const generated =
      input.secret === undefined && input.secrets === undefined ? generateWebhookSecret() : undefined;
    const secrets = input.secrets ?? [input.secret ?? (generated as string)];
    const endpoint = await outbox.addEndpoint({
      url: input.url,
      token: input.token,
      secrets,
      eventTypes: input.eventTypes ?? null,
      rateLimit: input.rateLimit ?? null,
      subscriberId: scope?.subscriberId ?? null,
    });
    ctx.status = 201;
    // A subscriber's endpoint is sent nothing until it answers the handshake, tried here at once (the
    // generated secret is what it signs with, so the receiver must already hold it to pass; if not, it
    // passes later with POST /endpoints/{id}/verify).
    // Its owner's handshakes used up: the endpoint is added all the same (its generated secret must be
    // shown now), unverified, and the answer says when to verify it again.
    let verification:
      | ReturnType<typeof presentVerification>
      | ReturnType<typeof presentThrottledVerification>
      | undefined;
    let shown = endpoint;
    if (scope)
      try {
        const checked = await verify(endpoint);
        shown = checked.endpoint;
        verification = presentVerification(checked.verification, "subscriber");
      } catch (error) {
        if (!(error instanceof AdminError) || error.status !== 429) throw error;
        verification = presentThrottledVerification(`Not sent: ${error.message}`);
      }
    // A generated secret is shown exactly once, here; a secret the caller chose is never echoed.
    ctx.body = {
      endpoint: presentEndpoint(shown),
      ...(generated ? { secret: generated } : {}),
      ...(verification ? { verification } : {}),
    };
  });
  for (const [action, status] of [
    ["disable", "disabled"],
    ["enable", "active"],
  ] as const) {
    admin.post(`/endpoints/:id/${action}`, async (ctx) => {
      const id = parse(IdSchema, ctx.params.id, "id");
      const endpoint = await outbox.setEndpointStatus(id, status, undefined, scopeOf(ctx));
      if (!endpoint) throw notFound("Endpoint");
      if (status === "active") wake();
      ctx.body = { endpoint: presentEndpoint(endpoint) };
    });
  }
  admin.get("/endpoints/:id", async (ctx) => {
    const endpoint = await outbox.getEndpoint(parse(IdSchema, ctx.params.id, "id"), scopeOf(ctx));
    if (!endpoint) throw notFound("Endpoint");
    ctx.body = { endpoint: presentEndpoint(endpoint) };
  });
  // Rotation: the next attempt (even one already queued) is signed with the new secrets and token.
  // Secrets stay unreadable: the answer shows how many there are, never their values.
  admin.patch("/endpoints/:id", async (ctx) => {
    const id = parse(IdSchema, ctx.params.id, "id");
    const input = parse(UpdateEndpointInputSchema, await readJsonBody(ctx.req), "endpoint update", BODY);
    const current = await outbox.getEndpoint(id, scopeOf(ctx));
    if (!current) throw notFound("Endpoint");
    // Moving an endpoint keeps its deliveries and history, so its new URL must pass every check a new
    // endpoint's does (its owner's guard): otherwise PATCH would be the way around the SSRF guard.
    if (input.url !== undefined)
      await checkUrl(input.url, "endpoint update", { id, subscriberId: current.subscriberId });
    // A limit set where there was none, or a move to another URL, counts against the owner's caps.
    await checkEndpointCaps(outbox, current.subscriberId, capsOf(current.subscriberId), {
      adds: false,
      rateLimited: input.rateLimit !== undefined && input.rateLimit !== null && current.rateLimit === null,
      url: input.url !== undefined && input.url !== current.url ? input.url : undefined,
    });
    // URL, token, secrets and subscriptions change together, in one transaction. New subscriptions
    // decide which messages queued from now on reach the endpoint; deliveries already queued stay, and
    // go to the new URL. A subscriber's endpoint given a new URL is unverified again (the queue clears
    // it): the new URL's owner has asked for nothing until it answers POST /endpoints/{id}/verify.
    const endpoint = await outbox.updateEndpoint(
      id,
      {
        ...(input.url === undefined ? {} : { url: input.url }),
        ...(input.token === undefined ? {} : { token: input.token }),
        ...(input.secrets === undefined ? {} : { secrets: input.secrets }),
        ...(input.eventTypes === undefined ? {} : { eventTypes: input.eventTypes }),
        ...(input.rateLimit === undefined ? {} : { rateLimit: input.rateLimit }),
      },
      scopeOf(ctx),
    );
    if (!endpoint) throw notFound("Endpoint");
    ctx.body = { endpoint: presentEndpoint(endpoint) };
  });
  admin.delete("/endpoints/:id", async (ctx) => {
    if (!(await outbox.removeEndpoint(parse(IdSchema, ctx.params.id, "id"), scopeOf(ctx))))
      throw notFound("Endpoint");
    ctx.status = 204;
  });

  admin.get("/deliveries", async (ctx) => {
    const query = parse(ListDeliveriesQuerySchema, ctx.query, "query", "(query)");
    const deliveries = await outbox.listDeliveries({
      limit: query.limit,
      ...(query.status ? { status: query.status } : {}),
      ...(query.eventType ? { eventType: query.eventType } : {}),
      ...(query.endpointId ? { endpointId: query.endpointId } : {}),
      ...scopeOf(ctx),
    });
    ctx.body = { deliveries: await presentDeliveries(plants, deliveries) };
  });
  admin.get("/deliveries/:id", async (ctx) => {
    const id = parse(IdSchema, ctx.params.id, "id");
    const scope = scopeOf(ctx);
    const delivery = await outbox.getDelivery(id, scope);
    if (!delivery) throw notFound("Delivery");
    const [shown] = await presentDeliveries(plants, [delivery]);
    ctx.body = { delivery: shown, attempts: (await outbox.listAttempts(id, scope)).map(presentAttempt) };
  });
  admin.post("/deliveries/:id/retry", async (ctx) => {
    const delivery = await outbox.retryDelivery(parse(IdSchema, ctx.params.id, "id"), scopeOf(ctx));
    if (!delivery) throw notFound("Delivery");
    wake();
    const [shown] = await presentDeliveries(plants, [delivery]);
    ctx.body = { delivery: shown };
  });
  admin.post("/replay", async (ctx) => {
    const input = parse(ReplayInputSchema, await readJsonBody(ctx.req), "replay", BODY);
    try {
      const queued = await outbox.replay(input.endpointId, new Date(input.since), scopeOf(ctx));
      wake();
      ctx.body = { queued };
    } catch (error) {
      if (error instanceof EndpointNotFoundError) throw notFound("Endpoint");
      throw error;
    }
  });

  admin.post("/endpoints/:id/verify", async (ctx) => {
    const endpoint = await outbox.getEndpoint(parse(IdSchema, ctx.params.id, "id"), scopeOf(ctx));
    if (!endpoint) throw notFound("Endpoint");
    const checked = await verify(endpoint);
    if (checked.verification.verified) wake();
    ctx.body = {
      endpoint: presentEndpoint(checked.endpoint),
      verification: presentVerification(checked.verification, principalOf(ctx).kind),
    };
  });
  // A signed example New Plant to this endpoint only, recorded like any delivery (its attempts show in
  // GET /deliveries): what a subscriber uses to try its receiver before real plants arrive.
  admin.post("/endpoints/:id/send-example", async (ctx) => {
    const id = parse(IdSchema, ctx.params.id, "id");
    const sent = await outbox.sendToEndpoint(id, EXAMPLE_NEW_PLANT, scopeOf(ctx));
    if (!sent) throw notFound("Endpoint");
    wake();
    ctx.status = 202;
    ctx.body = { messageId: sent.messageId, webhookId: sent.webhookId };
  });

  addOperatorRoutes(admin, outbox);
  addSubscriberRoutes(admin, { outbox, ...(portal ? { portal } : {}) });
  if (portal) addPortalRoutes(router, admin, { portal, throttle });
  if (options.listen) addListenRoutes({ router, admin, ...options.listen });

  mountRouter(app, router);
  mountRouter(app, admin);
  return app;
}
