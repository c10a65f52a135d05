import {
  type AuthThrottle,
  type BrowserSessions,
  createAuthThrottle,
  createBearerGuard,
  createBrowserSessions,
  createErrorBoundary,
} from "@plant-store/app-shell";
import {
  type Endpoint,
  type EndpointVerification,
  type Outbox,
  type SsrfTargetEndpoint,
  SUBSCRIBER_TOKEN_PREFIX,
} from "@plant-store/sender";
import Koa from "koa";
import type { Logger } from "pino";
import { Counter, type Registry } from "prom-client";
import type { HandshakeThrottle } from "./create-handshake-throttle.js";
import type { ListenRelay } from "./create-listen-relay.js";
import { PORTAL_SESSION_PREFIX, type PortalAccess } from "./create-portal-access.js";
import type { EndpointCaps } from "./endpoint-caps.js";
import { isAdminToken } from "./is-admin-token.js";
import type { PlantCatalog } from "./plant-catalog.js";
import type { Principal } from "./principal.js";
import { deliveryRoutes } from "./routes/delivery-routes.js";
import { endpointRoutes } from "./routes/endpoint-routes.js";
import { eventRoutes } from "./routes/event-routes.js";
import { listenRoutes } from "./routes/listen-routes.js";
import { monitoringRoutes } from "./routes/monitoring-routes.js";
import { mountRouteTables } from "./routes/mount-route-tables.js";
import { pageRoutes } from "./routes/page-routes.js";
import { plantRoutes } from "./routes/plant-routes.js";
import { portalRoutes } from "./routes/portal-routes.js";
import type { Route, RouteTable } from "./routes/route-table.js";
import { sessionRoutes } from "./routes/session-routes.js";
import { subscriberRoutes } from "./routes/subscriber-routes.js";
import { storageUnavailableCode } from "./storage-unavailable-code.js";

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

/** The queue's refusals the API answers with their own message, by the stable `code` each error carries. */
const QUEUE_ERROR_STATUS: Readonly<Record<string, number>> = {
  ERR_INVALID_ENDPOINT: 400,
  // The schema refuses what the queue does first; this keeps any later rule of the queue's a 400, not a 500.
  ERR_INVALID_SUBSCRIBER: 400,
  ERR_IDEMPOTENCY_CONFLICT: 409,
};

/** A route as the tests and the document see it: what a row of the tables states but its handler. */
export type AdminRoute = Omit<Route, "handler"> & { resource: string };

/**
 * The Plant Store's admin API (documented in apps/sender/admin-openapi.json), and its routes as the
 * tables declare them. The first middleware is the error boundary: errors with a status and code become
 * `{error, message}` with their status; anything else a generic 500 and a log line, never a stack or a
 * secret.
 */
export function createAdminApi(options: AdminAppOptions): { app: Koa; routes: readonly AdminRoute[] } {
  const { outbox, plants, logger, portal } = options;
  const wake = options.wake ?? (() => undefined);
  const app = new Koa();
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

  // The token, a page's session or a subscriber's credential: every route but the public ones asks for
  // one, and so does every request no route takes (see mountRouteTables).
  const guard = createBearerGuard({
    acceptsToken,
    sessions,
    throttle,
    realm: "plant-store admin",
    message: "Missing or wrong admin token (Authorization: Bearer <token>)",
    resolveOther: resolveSubscriber,
  });
  const tables: Record<string, RouteTable> = {
    pages: pageRoutes(),
    monitoring: monitoringRoutes({ outbox, registry: options.registry }),
    sessions: sessionRoutes({ sessions, throttle, acceptsToken, credential: "admin token" }),
    plants: plantRoutes({ plants, wake }),
    endpoints: endpointRoutes({
      outbox,
      wake,
      logger,
      checkTarget: options.checkTarget,
      verifyEndpoint: options.verifyEndpoint,
      handshakeThrottle: options.handshakeThrottle,
      endpointCaps: options.endpointCaps,
    }),
    deliveries: deliveryRoutes({ outbox, plants, wake }),
    events: eventRoutes({ outbox, guard, throttle }),
    subscribers: subscriberRoutes({ outbox, portal }),
    ...(portal ? { portal: portalRoutes({ portal, throttle }) } : {}),
    ...(options.listen ? { listen: listenRoutes(options.listen) } : {}),
  };
  mountRouteTables(app, Object.values(tables), guard);
  const routes = Object.entries(tables).flatMap(([resource, table]) =>
    table.map(({ method, path, access }) => ({ method, path, access, resource })),
  );
  return { app, routes };
}

/** The admin API's Koa app (`createAdminApi` without the list of its routes). */
export function createAdminApp(options: AdminAppOptions): Koa {
  return createAdminApi(options).app;
}
