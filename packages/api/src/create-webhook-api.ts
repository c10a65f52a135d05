import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type AuthThrottle,
  type BrowserSessions,
  createAuthThrottle,
  createBearerGuard,
  createBrowserSessions,
  createErrorBoundary,
} from "@plant-store/app-shell/http";
import {
  createDeliveryClient,
  createSsrfGuard,
  type Endpoint,
  type EndpointVerification,
  type Outbox,
  type SenderLogger,
  type SsrfGuard,
  SUBSCRIBER_TOKEN_PREFIX,
  verifyEndpoint,
} from "@plant-store/sender";
import { DELIVERY_TIMEOUT_MS } from "@plant-store/types";
import Koa from "koa";
import { Counter, type Registry } from "prom-client";
import { isOperatorToken } from "./access/is-operator-token.js";
import { mountRouteTables } from "./access/mount-route-tables.js";
import type { Principal } from "./access/principal.js";
import type { MountableRoute, RouteDeclaration } from "./access/route-declaration.js";
import type { RouteTable } from "./access/route-table.js";
import { createFetchHandler, type FetchHandler } from "./adapters/create-fetch-handler.js";
import { type ApiRequest, createNodeHandler, type NodeHandler } from "./adapters/create-node-handler.js";
import { setKoaApp } from "./adapters/koa-app.js";
import type { HandshakeThrottle } from "./endpoints/create-handshake-throttle.js";
import type { EndpointCaps } from "./endpoints/endpoint-caps.js";
import { InvalidApiOptionsError } from "./errors.js";
import { endpointInputs } from "./inputs/api-inputs.js";
import { createListenRelay, type ListenRelay } from "./listen/create-listen-relay.js";
import { trustListenRelay } from "./listen/trust-listen-relay.js";
import { renderOperatorPage } from "./page-html/operator-page-html.js";
import { renderPortalPage } from "./page-html/portal-page-html.js";
import { createMemoryPortalCredentials } from "./portal/create-memory-portal-credentials.js";
import {
  createPortalAccess,
  PORTAL_SESSION_PREFIX,
  type PortalAccess,
} from "./portal/create-portal-access.js";
import { createSqlitePortalCredentials } from "./portal/create-sqlite-portal-credentials.js";
import type { PortalCredentialRows } from "./portal/portal-credential-rows.js";
import { deliveryRoutes } from "./routes/delivery-routes.js";
import { endpointRoutes } from "./routes/endpoint-routes.js";
import { eventRoutes } from "./routes/event-routes.js";
import { exclusionRoutes } from "./routes/exclusion-routes.js";
import { listenRoutes } from "./routes/listen-routes.js";
import { messageRoutes } from "./routes/message-routes.js";
import { monitoringRoutes } from "./routes/monitoring-routes.js";
import { pageRoutes } from "./routes/page-routes.js";
import { portalRoutes } from "./routes/portal-routes.js";
import { sessionRoutes } from "./routes/session-routes.js";
import { subscriberRoutes } from "./routes/subscriber-routes.js";
import { storageUnavailableCode } from "./storage-unavailable-code.js";

/**
 * Who a request acts for, as an `authenticate` function answers it: the operator (who sees everything),
 * one subscriber (by id; it must exist), or `undefined` for nobody (the API then asks for a bearer
 * credential as usual).
 */
export type AuthenticatedAs = { kind: "operator" } | { kind: "subscriber"; subscriberId: number };

export interface WebhookApiOptions {
  outbox: Outbox;
  /**
   * The operator's bearer tokens (any of them is accepted, compared in constant time; the operator page
   * signs in with one). At least one, or an `authenticate` function.
   */
  operatorTokens?: readonly string[];
  /**
   * The team's own sign-in: called for every request that needs a principal before any bearer token is
   * looked at. Answer who the request is (say, from your session cookie) or `undefined` to fall back to
   * the tokens. Nothing is throttled for you here: your sessions are yours.
   */
  authenticate?: (
    request: IncomingMessage,
  ) => AuthenticatedAs | undefined | Promise<AuthenticatedAs | undefined>;
  /**
   * Turns the subscriber portal on: portal links and sessions are kept by HMAC-SHA256 digest under this key
   * (at least 32 characters), so changing it ends every link and session at once.
   */
  portalSecret?: string;
  /**
   * Where portal links and sessions are kept. Default: the outbox's own SQLite file for a SQLite outbox
   * (links used once across processes); otherwise this process's memory. For PostgreSQL pass
   * `await createPostgresPortalCredentials(pool)` from `@plant-store/api/postgres`.
   */
  portalCredentials?: PortalCredentialRows;
  /** A portal access of your own (replaces `portalSecret` and `portalCredentials`). */
  portal?: PortalAccess;
  /**
   * The SSRF guard your worker uses, so handshakes go where deliveries may (default: public addresses
   * only). Give your worker `api.ssrfGuard`: the same guard plus the one exception `listen` needs.
   */
  ssrfGuard?: SsrfGuard;
  /**
   * The path the API is served under when `api.fetch` gets whole URLs (Hono's `app.mount`, a Worker) or
   * `api.node` runs as the whole server (`http.createServer(api.node)`); Express's `app.use(path, …)`
   * is read from the request, as is Koa's prefix.
   */
  basePath?: string;
  /**
   * The origin the worker reaches this API on, for `listen`'s relay (`http://127.0.0.1:3000`). Default:
   * the local address of the connection that opened the session (node), or a loopback request URL's
   * origin (fetch); never a name a client sends.
   */
  relayOrigin?: string;
  /** The worker's per-attempt limit, which `listen` waits for a local answer; default 15 s. */
  deliveryTimeoutMs?: number;
  /** Starts your worker at once after writes that create due work (`() => worker.wake()`). */
  wake?: () => void;
  /** `/metrics` serves it (the operator's only), and auth refusals are counted in it. */
  registry?: Registry;
  logger?: SenderLogger;
  /** The event types the operator page offers (filters, subscriptions); default none listed. */
  eventTypes?: readonly string[];
  /** What "send an example" sends; default a message of the first event type with `{ "example": true }`. */
  exampleMessage?: { eventType: string; payload: Record<string, unknown> };
  /** The pages' title; default "Webhooks". */
  title?: string;
  /** Serve the operator page at `/` and the portal at `/portal` (default true). */
  pages?: boolean;
  /**
   * Your own routes, mounted with the API's access rules (say, the resource your messages are about):
   * Koa middleware, written as a `RouteTable` from `@plant-store/api/koa`.
   */
  routes?: Readonly<Record<string, readonly MountableRoute[]>>;
  /**
   * What each owner may hold through `POST`/`PATCH /endpoints`: the operator's (default 1,000 endpoints)
   * and each subscriber's (default 20).
   */
  endpointCaps?: { operator?: Partial<EndpointCaps>; subscriber?: Partial<EndpointCaps> };
  /** Replaces the verification handshake (default: the sender's `verifyEndpoint` through `ssrfGuard`). */
  verifyEndpoint?: (endpoint: Endpoint) => Promise<EndpointVerification>;
  /** Bounds handshakes per endpoint and per owner (default `HANDSHAKE_LIMITS`). */
  handshakeThrottle?: HandshakeThrottle;
  /** Slows down clients presenting wrong credentials; default 20 at once, then one a second. */
  throttle?: AuthThrottle;
  /** The operator page's sessions; default sessions signed for the operator tokens. */
  sessions?: BrowserSessions;
}

/** A route as the tests and the document see it: what a row of the tables states but its handler. */
export type ApiRoute = RouteDeclaration & { resource: string };

export interface WebhookApi {
  /** A node:http / Express / Connect handler serving the API, the pages and the relay where it is mounted. */
  node: NodeHandler;
  /** A fetch handler (Hono, Workers-style runtimes, `Bun.serve`). */
  fetch: FetchHandler;
  /** Your worker's SSRF guard: the one given, plus `listen`'s relay for the sessions this API opened. */
  ssrfGuard: SsrfGuard;
  /** Every route, as declared (method, path, access, resource). */
  routes: readonly ApiRoute[];
  /** Ends `listen` sessions (removing their endpoints); call before closing your server. */
  close(): Promise<void>;
  /**
   * `listen`'s relay, for a server that knows its address before any session opens: `setOrigin`, then
   * `removeStale` (listen endpoints a stopped process left) before the worker starts.
   */
  listenRelay: Pick<ListenRelay, "setOrigin" | "removeStale">;
}

/** The queue's refusals the API answers with their own message, by the stable `code` each error carries. */
const QUEUE_ERROR_STATUS: Readonly<Record<string, number>> = {
  ERR_INVALID_ENDPOINT: 400,
  // The schemas refuse what the queue does first; this keeps any later rule of the queue's a 400, not a 500.
  ERR_INVALID_SUBSCRIBER: 400,
  ERR_INVALID_MESSAGE: 400,
  ERR_INVALID_PAYLOAD: 400,
  ERR_IDEMPOTENCY_CONFLICT: 409,
};

function resolvePortal(options: WebhookApiOptions): PortalAccess | undefined {
  if (options.portal) return options.portal;
  if (options.portalSecret === undefined) {
    if (options.portalCredentials)
      throw new InvalidApiOptionsError("portalCredentials needs a portalSecret to key the credentials with");
    return undefined;
  }
  if (options.portalSecret.length < 32)
    throw new InvalidApiOptionsError(
      "portalSecret must be at least 32 characters (say, 32 random bytes in base64)",
    );
  const db = (options.outbox as { db?: unknown }).db;
  const rows =
    options.portalCredentials ??
    (db !== undefined && typeof (db as { prepare?: unknown }).prepare === "function"
      ? createSqlitePortalCredentials(
          options.outbox as unknown as Parameters<typeof createSqlitePortalCredentials>[0],
        )
      : createMemoryPortalCredentials());
  return createPortalAccess(rows, { key: options.portalSecret });
}

/**
 * The webhook API over one outbox, ready to mount: messages, endpoints, subscribers and their portal
 * links, deliveries and attempts, retry and replay, alerts and stats, `listen`'s relay, the operator page
 * and the portal. The first middleware is the error boundary: errors with a status and code become
 * `{error, message}`; anything else a generic 500 and a log line, never a stack or a secret.
 */
export function createWebhookApi(options: WebhookApiOptions): WebhookApi {
  const { outbox, logger } = options;
  const operatorTokens = options.operatorTokens ?? [];
  if (operatorTokens.some((token) => typeof token !== "string" || token.length < 16))
    throw new InvalidApiOptionsError("Each operator token must be a string of at least 16 characters");
  if (operatorTokens.length === 0 && options.authenticate === undefined)
    throw new InvalidApiOptionsError("Give operatorTokens, an authenticate function, or both");
  if (options.basePath !== undefined && !/^(\/[^/?#]+)+$/.test(options.basePath))
    throw new InvalidApiOptionsError(
      `basePath must look like "/webhooks" (no trailing slash): "${options.basePath}"`,
    );
  const portal = resolvePortal(options);
  const wake = options.wake ?? (() => undefined);
  const timeoutMs = options.deliveryTimeoutMs ?? DELIVERY_TIMEOUT_MS;
  const relay: ListenRelay = createListenRelay({ outbox, timeoutMs, ...(logger ? { logger } : {}) });
  if (options.relayOrigin !== undefined) relay.setOrigin(options.relayOrigin.replace(/\/$/, ""));
  const ssrfGuard = trustListenRelay(options.ssrfGuard ?? createSsrfGuard(), relay);

  const app = new Koa();
  const refusals =
    options.registry &&
    new Counter({
      name: "webhook_api_auth_refusals_total",
      help: "Webhook API requests refused for their credential: wrong (401) or from a client slowed down (429)",
      labelNames: ["outcome"] as const,
      registers: [options.registry],
    });
  const sessions = options.sessions ?? createBrowserSessions({ tokens: [...operatorTokens] });
  const throttle =
    options.throttle ??
    createAuthThrottle({
      credential: "token",
      ...(logger ? { logger } : {}),
      count: (outcome) => refusals?.inc({ outcome }),
    });
  const acceptsToken = (candidate: string) =>
    // Every token compared, so the time does not say which one matched.
    operatorTokens.reduce((found, token) => isOperatorToken(candidate, token) || found, false);
  const subscriberPrincipal = async (id: number): Promise<Principal | undefined> => {
    const subscriber = await outbox.getSubscriber(id);
    return subscriber ? { kind: "subscriber", subscriber } : undefined;
  };
  /** A subscriber's token or portal session, resolved to its subscriber (which must still exist). */
  const resolveSubscriber = async (candidate: string): Promise<Principal | undefined> => {
    if (candidate.startsWith(SUBSCRIBER_TOKEN_PREFIX)) {
      const subscriber = await outbox.authenticateSubscriber(candidate);
      return subscriber ? { kind: "subscriber", subscriber } : undefined;
    }
    if (portal && candidate.startsWith(PORTAL_SESSION_PREFIX)) {
      const id = await portal.sessionSubscriber(candidate);
      return id === undefined ? undefined : subscriberPrincipal(id);
    }
    return undefined;
  };

  app.use(
    createErrorBoundary({
      ...(logger ? { logger } : {}),
      classify: (error) => {
        const refused = QUEUE_ERROR_STATUS[(error as { code?: unknown } | undefined)?.code as string];
        if (refused !== undefined && error instanceof Error)
          return { status: refused, message: error.message };
        // A database that cannot read or write right now: the request changed nothing, try again.
        const storage = storageUnavailableCode(error);
        if (storage === undefined) return undefined;
        return {
          status: 503,
          message: `The database is unavailable (${storage}); try again`,
          headers: { "retry-after": "5" },
        };
      },
    }),
  );

  const bearerGuard = createBearerGuard({
    acceptsToken,
    sessions,
    throttle,
    realm: "webhooks",
    message: "Missing or wrong token (Authorization: Bearer <token>)",
    resolveOther: resolveSubscriber,
  });
  const authenticate = options.authenticate;
  const guard: Koa.Middleware = authenticate
    ? async (ctx, next) => {
        const who = await authenticate(ctx.req);
        if (who === undefined) return bearerGuard(ctx, next);
        if (who.kind === "subscriber") {
          const principal = await subscriberPrincipal(who.subscriberId);
          if (principal === undefined) {
            ctx.status = 401;
            ctx.body = { error: "ERR_UNAUTHORIZED", message: "The signed-in subscriber no longer exists" };
            return;
          }
          ctx.state.principal = principal;
        }
        ctx.state.auth = "other";
        return next();
      }
    : bearerGuard;

  const eventTypes = options.eventTypes ?? [];
  const title = options.title ?? "Webhooks";
  const inputs = endpointInputs(options.eventTypes);
  const tables: Record<string, RouteTable> = {
    ...(options.pages === false
      ? {}
      : {
          pages: pageRoutes({
            operator: renderOperatorPage({ title, eventTypes }),
            portal: renderPortalPage({ title, eventTypes }),
          }),
        }),
    monitoring: monitoringRoutes({ outbox, ...(options.registry ? { registry: options.registry } : {}) }),
    sessions: sessionRoutes({ sessions, throttle, acceptsToken, credential: "operator token" }),
    messages: messageRoutes({ outbox, wake }),
    endpoints: endpointRoutes({
      outbox,
      wake,
      logger,
      checkTarget: (url, endpoint) => ssrfGuard.check(url, { endpoint }),
      verifyEndpoint: options.verifyEndpoint ?? defaultHandshake(ssrfGuard),
      handshakeThrottle: options.handshakeThrottle,
      endpointCaps: options.endpointCaps,
      inputs,
      example: options.exampleMessage ?? {
        eventType: eventTypes.find((type) => !type.endsWith("*")) ?? "example",
        payload: { example: true },
      },
    }),
    deliveries: deliveryRoutes({ outbox, wake, inputs }),
    events: eventRoutes({ outbox, guard, throttle }),
    exclusions: exclusionRoutes({ outbox }),
    subscribers: subscriberRoutes({ outbox, portal }),
    ...(portal ? { portal: portalRoutes({ portal, throttle }) } : {}),
    listen: listenRoutes({ relay, timeoutMs, inputs, learnOrigin: (origin) => learnOrigin(origin) }),
    // Any Koa middleware fits `MountableRoute`'s handler: it is the router's, as the API's own are.
    ...(options.routes as Readonly<Record<string, RouteTable>> | undefined),
  };
  let originLearned = options.relayOrigin !== undefined;
  const learnOrigin = (origin: string) => {
    if (originLearned) return;
    originLearned = true;
    relay.setOrigin(origin);
    // Listen endpoints a stopped process left at this origin are not live: remove them.
    relay
      .removeStale()
      .catch((error: unknown) =>
        logger?.warn({ err: error }, "could not look for listen endpoints left by a stopped process"),
      );
  };
  mountRouteTables(app, Object.values(tables), guard);
  const routes = Object.entries(tables).flatMap(([resource, table]) =>
    table.map(({ method, path, access }) => ({ method, path, access, resource })),
  );
  const handle = app.callback() as (req: ApiRequest, res: ServerResponse) => Promise<void>;
  const api: WebhookApi = {
    node: createNodeHandler(handle, options.basePath),
    fetch: createFetchHandler(handle, options.basePath),
    ssrfGuard,
    routes,
    close: () => relay.closeAll(),
    listenRelay: {
      setOrigin: (origin) => {
        originLearned = true;
        relay.setOrigin(origin);
      },
      removeStale: () => relay.removeStale(),
    },
  };
  setKoaApp(api, app);
  return api;
}

/** The handshake goes out as deliveries do: through the worker's guard, asked for this endpoint. */
function defaultHandshake(ssrfGuard: SsrfGuard) {
  const client = createDeliveryClient();
  return (endpoint: Endpoint) =>
    verifyEndpoint(endpoint, {
      client,
      ssrfGuard: {
        check: (url, checkOptions) =>
          ssrfGuard.check(url, {
            ...checkOptions,
            endpoint: { id: endpoint.id, subscriberId: endpoint.subscriberId },
          }),
      },
    });
}
