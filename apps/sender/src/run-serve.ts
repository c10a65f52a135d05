import type { AddressInfo } from "node:net";
import { createPortalAccess } from "@plant-store/api";
import { webhookApiKoa } from "@plant-store/api/koa";
import {
  type AlertRaised,
  createHttpServer,
  type DeliveryAttempted,
  logPoolError,
} from "@plant-store/app-shell";
import {
  createDeliveryClient,
  createRetryPolicy,
  createSsrfGuard,
  createWorker,
  verifyEndpoint,
} from "@plant-store/sender";
import type { Logger } from "pino";
import { createAdminApi } from "./create-admin-app.js";
import { createMetrics } from "./create-metrics.js";
import { isPostgresUrl, openStore } from "./open-store.js";
import { ENCRYPTION_KEY_ENV, resolveSecretsCipher } from "./resolve-secrets-cipher.js";
import type { ServeConfig } from "./serve-config.js";

export interface RunningStore {
  url: string;
  /** Stops accepting requests and claiming, finishes or gives back in-flight attempts, closes the DB. */
  stop(): Promise<void>;
}

/** Starts the worker and the admin API on one outbox. */
export async function runServe(config: ServeConfig, logger: Logger): Promise<RunningStore> {
  const secretsCipher = resolveSecretsCipher(config.encryptionKeyFile);
  const store = await openStore(config.db, { onError: logPoolError(logger), secretsCipher });
  const { outbox, plants } = store;
  const portal = createPortalAccess(store.portalCredentials);
  try {
    // Every endpoint read once now: a wrong or missing key stops the start, instead of failing every claim.
    await outbox.listEndpoints();
  } catch (error) {
    await store.close();
    throw error;
  }
  if (!secretsCipher)
    logger.warn(
      { setting: `${ENCRYPTION_KEY_ENV} or --encryption-key-file` },
      "endpoint tokens and signing secrets are stored unencrypted: give an encryption key to encrypt them at rest",
    );
  const metrics = createMetrics();
  const ssrfGuard = createSsrfGuard({
    // Per owner (issue 37): the operator's flag covers the operator's endpoints, subscribers have their
    // own; a check that names no endpoint gets what both allow.
    allowPrivateTargets: (endpoint) =>
      endpoint === undefined
        ? config.allowPrivateTargets && config.allowPrivateTargetsForSubscribers
        : endpoint.subscriberId === null
          ? config.allowPrivateTargets
          : config.allowPrivateTargetsForSubscribers,
  });
  // As many kept-alive sockets per host as attempts in flight: fewer would queue attempts in the agent.
  const client = createDeliveryClient({ timeoutMs: config.timeout, maxSockets: config.concurrency });
  const api = createAdminApi({
    outbox,
    plants,
    adminToken: config.adminToken,
    registry: metrics.registry,
    logger,
    ssrfGuard,
    // The handshake goes out as deliveries do: same client, same guard, asked for this endpoint.
    verifyEndpoint: (endpoint) =>
      verifyEndpoint(endpoint, {
        client,
        ssrfGuard: {
          check: (url, options) =>
            api.ssrfGuard.check(url, {
              ...options,
              endpoint: { id: endpoint.id, subscriberId: endpoint.subscriberId },
            }),
        },
      }),
    wake: () => worker.wake(),
    endpointCaps: { subscriber: { endpoints: config.maxSubscriberEndpoints } },
    portal,
    timeoutMs: config.timeout,
  });
  const worker = createWorker({
    outbox,
    client,
    policy: createRetryPolicy({
      schedule: config.retrySchedule,
      disableAfterMs: config.disableAfter,
      ...(config.alertAfter === undefined ? {} : { alertAfterMs: config.alertAfter }),
      finalStatuses: config.finalStatuses,
    }),
    // The guard plus `listen`'s relay: the one private target always allowed, for the endpoint id a
    // session was opened with, at the URL it made (never a URL alone).
    ssrfGuard: api.ssrfGuard,
    concurrency: config.concurrency,
    perEndpointConcurrency: config.perEndpointConcurrency,
    leaseMs: config.lease,
    // Other processes' writes wake the worker without a poll (PostgreSQL NOTIFY, SQLite data_version),
    // so the poll only finds retries coming due and expired leases.
    pollIntervalMs: config.pollInterval,
    logger,
    // Finished deliveries older than this go in small batches; a delivery still pending never does.
    retention: { maxAgeMs: config.retention },
    onAttempt: (attempt) => {
      metrics.observe(attempt);
      // The stable record of each attempt for programs following the log (the demo, tests, benchmarks).
      const event: DeliveryAttempted = { event: "delivery.attempted", ...attempt, workerId: worker.id };
      logger.info(event, "delivery attempted");
    },
    onAlert: (alert) => {
      metrics.alert(alert);
      const event: AlertRaised = { event: "alert.raised", ...alert, workerId: worker.id };
      logger.warn(event, alert.type);
    },
  });
  const server = createHttpServer(webhookApiKoa(api), {
    headersTimeoutMs: config.headersTimeout,
    requestTimeoutMs: config.requestTimeout,
    maxConnectionsPerClient: config.maxConnectionsPerClient,
    logger,
  });
  server.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  const url = `http://${host}:${port}`;
  // The worker reaches the relay on loopback when the admin API listens on every address.
  api.listenRelay.setOrigin(
    address === "0.0.0.0" ? `http://127.0.0.1:${port}` : address === "::" ? `http://[::1]:${port}` : url,
  );
  // Before the worker starts: deliveries to a listen endpoint a stopped store left must not go out.
  await api.listenRelay
    .removeStale()
    .catch((error: unknown) =>
      logger.warn({ err: error }, "could not look for listen endpoints left by a stopped store"),
    );
  worker.start();
  logger.info(
    { url, workerId: worker.id, db: isPostgresUrl(config.db) ? "postgres" : "sqlite" },
    "listening",
  );
  return {
    url,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Listen streams never end by themselves: end them (and remove their endpoints) so close() can.
      await api
        .close()
        .catch((error: unknown) => logger.warn({ err: error }, "could not close every listen session"));
      server.closeIdleConnections();
      await worker.stop();
      await closed;
      await store.close();
    },
  };
}
