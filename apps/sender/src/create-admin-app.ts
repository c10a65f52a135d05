import {
  type ApiRoute,
  createWebhookApi,
  type EndpointCaps,
  type HandshakeThrottle,
  type PortalAccess,
  type WebhookApi,
} from "@plant-store/api";
import { webhookApiKoa } from "@plant-store/api/koa";
import type { AuthThrottle, BrowserSessions } from "@plant-store/app-shell";
import {
  createDeliveryClient,
  createSsrfGuard,
  type Endpoint,
  type EndpointVerification,
  type Outbox,
  type SsrfGuard,
  type SsrfTargetEndpoint,
  verifyEndpoint,
} from "@plant-store/sender";
import { PLANT_STORE_WEBHOOKS } from "@plant-store/types";
import type Koa from "koa";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { PlantCatalog } from "./plant-catalog.js";
import { plantRoutes } from "./plant-routes.js";

export interface AdminAppOptions {
  outbox: Outbox;
  plants: PlantCatalog;
  adminToken: string;
  registry: Registry;
  logger?: Logger;
  /**
   * The worker's SSRF guard: a new or changed endpoint URL is checked against it, handshakes go through it,
   * and `listen`'s relay is added to it (`api.ssrfGuard`, what the worker is given).
   */
  ssrfGuard?: SsrfGuard;
  /**
   * Without a guard: refuses an endpoint URL before it is stored (only a refusal counts). Without either,
   * URLs are not checked when stored, and handshakes go to public addresses only.
   */
  checkTarget?: (url: string, endpoint: SsrfTargetEndpoint) => Promise<unknown>;
  /** Called after writes that create due work, so this process's worker starts at once. */
  wake?: () => void;
  sessions?: BrowserSessions;
  throttle?: AuthThrottle;
  endpointCaps?: { operator?: Partial<EndpointCaps>; subscriber?: Partial<EndpointCaps> };
  verifyEndpoint?: (endpoint: Endpoint) => Promise<EndpointVerification>;
  handshakeThrottle?: HandshakeThrottle;
  /** Subscribers' portal links (`createPortalAccess` on the store's `portalCredentials`). */
  portal?: PortalAccess;
  /** The worker's per-attempt limit, which `listen` waits for a local answer. */
  timeoutMs?: number;
}

/** What the store example is, in the webhook API's terms: a New Plant no catalog holds. */
const EXAMPLE_NEW_PLANT = {
  eventType: "newPlant",
  payload: { id: 1, name: "Example plant", tag: "example" },
};

/**
 * The Plant Store's admin API: `@plant-store/api`'s webhook API (documented in
 * packages/api/openapi.json) over the store's outbox, with the store's own plants added on top.
 */
export function createAdminApi(options: AdminAppOptions): WebhookApi & { routes: readonly ApiRoute[] } {
  const wake = options.wake ?? (() => undefined);
  const { checkTarget } = options;
  // Only a refusal counts: what the check resolves to is never connected to.
  const storeCheck: SsrfGuard = {
    check: async (url, checkOptions) => {
      await checkTarget?.(url, checkOptions?.endpoint ?? { subscriberId: null });
      return { address: "0.0.0.0", family: 4 };
    },
  };
  const publicOnly = { client: createDeliveryClient(), ssrfGuard: createSsrfGuard() };
  return createWebhookApi({
    outbox: options.outbox,
    operatorTokens: [options.adminToken],
    registry: options.registry,
    ...(options.logger ? { logger: options.logger } : {}),
    ssrfGuard: options.ssrfGuard ?? storeCheck,
    wake,
    title: "Plant Store",
    eventTypes: PLANT_STORE_WEBHOOKS.eventTypes,
    exampleMessage: EXAMPLE_NEW_PLANT,
    ...(options.sessions ? { sessions: options.sessions } : {}),
    ...(options.throttle ? { throttle: options.throttle } : {}),
    ...(options.endpointCaps ? { endpointCaps: options.endpointCaps } : {}),
    ...(options.verifyEndpoint
      ? { verifyEndpoint: options.verifyEndpoint }
      : options.ssrfGuard
        ? {}
        : { verifyEndpoint: (endpoint: Endpoint) => verifyEndpoint(endpoint, publicOnly) }),
    ...(options.handshakeThrottle ? { handshakeThrottle: options.handshakeThrottle } : {}),
    ...(options.portal ? { portal: options.portal } : {}),
    ...(options.timeoutMs === undefined ? {} : { deliveryTimeoutMs: options.timeoutMs }),
    routes: { plants: plantRoutes({ plants: options.plants, wake }) },
  });
}

/** The admin API's Koa app (`createAdminApi` without the rest). */
export function createAdminApp(options: AdminAppOptions): Koa {
  return webhookApiKoa(createAdminApi(options));
}
