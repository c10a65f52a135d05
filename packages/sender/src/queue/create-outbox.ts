import type { WebhookCatalog } from "@plant-store/types";
import { InvalidMessageError, StaleReadError } from "../errors.js";
import type { EnqueueResult, MessageInput, Outbox } from "../outbox.js";
import type { SecretCodec } from "../secrets/create-secret-codec.js";
import { traceEnqueue } from "../tracing/trace-enqueue.js";
import type { Driver } from "./driver.js";
import type { Operation } from "./operation.js";
import { addEndpoint } from "./operations/add-endpoint.js";
import { addSubscriber } from "./operations/add-subscriber.js";
import { attemptTimeline } from "./operations/attempt-timeline.js";
import { authenticateSubscriber } from "./operations/authenticate-subscriber.js";
import { claimDue } from "./operations/claim-due.js";
import { countEndpoints } from "./operations/count-endpoints.js";
import { endpointStats } from "./operations/endpoint-stats.js";
import { enqueueMessages } from "./operations/enqueue-messages.js";
import { ensureEndpoint } from "./operations/ensure-endpoint.js";
import { getDelivery } from "./operations/get-delivery.js";
import { getEndpoint } from "./operations/get-endpoint.js";
import { getMessage } from "./operations/get-message.js";
import { getSubscriber } from "./operations/get-subscriber.js";
import { listAlerts } from "./operations/list-alerts.js";
import { listAttempts } from "./operations/list-attempts.js";
import { listDeliveries } from "./operations/list-deliveries.js";
import { listEndpoints } from "./operations/list-endpoints.js";
import { listEvents } from "./operations/list-events.js";
import { listExcluded } from "./operations/list-excluded.js";
import { listSubscribers } from "./operations/list-subscribers.js";
import { markEndpointVerified } from "./operations/mark-endpoint-verified.js";
import { recordAttempts } from "./operations/record-attempts.js";
import { reencryptEndpoints } from "./operations/reencrypt-endpoints.js";
import { releaseLeases } from "./operations/release-leases.js";
import { removeEndpoint } from "./operations/remove-endpoint.js";
import { removeSubscriber } from "./operations/remove-subscriber.js";
import { replayMessages } from "./operations/replay-messages.js";
import { retryDelivery } from "./operations/retry-delivery.js";
import { rotateEndpointSecret } from "./operations/rotate-endpoint-secret.js";
import { rotateSubscriberToken } from "./operations/rotate-subscriber-token.js";
import { sendToEndpoint } from "./operations/send-to-endpoint.js";
import { setEndpointStatus } from "./operations/set-endpoint-status.js";
import { sweepFinished } from "./operations/sweep-finished.js";
import { updateEndpoint } from "./operations/update-endpoint.js";
import { prepareMessage } from "./prepare-message.js";
import type { QueueContext } from "./queue-context.js";

/** The outbox over one database, with `enqueue` able to join the caller's transaction (`Join`). */
export interface JoinableOutbox<Join> extends Outbox {
  enqueue(message: MessageInput, join?: Join): Promise<EnqueueResult>;
  enqueueMany(messages: readonly MessageInput[], join?: Join): Promise<EnqueueResult[]>;
  /** A fresh context for one operation (the store's time is read per operation). */
  context(): QueueContext;
}

/**
 * The outbox, written once: every method is one operation of `queue/operations`, run in a transaction of
 * its own (writes) or statement by statement (reads) through the database's driver.
 */
export function createOutbox<Join>(
  driver: Driver<Join>,
  codec: SecretCodec,
  catalog?: WebhookCatalog,
): JoinableOutbox<Join> {
  // Kept across operations: this process's copy of the filter set, on a store that checks it.
  const filterSets = driver.store.readFilterSet ? { current: undefined } : undefined;
  const context = (): QueueContext => ({
    dialect: driver.dialect,
    store: driver.store,
    now: driver.now(),
    codec,
    ...(catalog ? { catalog } : {}),
    ...(filterSets ? { filterSets } : {}),
  });
  const write = <R>(operation: (ctx: QueueContext) => Operation<R>, join?: Join) =>
    driver.transaction(operation(context()), join);
  const read = <R>(operation: (ctx: QueueContext) => Operation<R>) => driver.read(operation(context()));

  async function enqueueMany(messages: readonly MessageInput[], join?: Join): Promise<EnqueueResult[]> {
    if (messages.length === 0) return [];
    // Every message is checked before anything is written.
    const prepared = messages.map((message) => prepareMessage(message, catalog));
    // One message is one statement (a refused one wrote nothing), so it needs no transaction of its own;
    // a batch may have to take back what it inserted, before anyone can see it.
    const run = prepared.length === 1 ? driver.statements.bind(driver) : driver.transaction.bind(driver);
    return traceEnqueue(
      prepared.map((message) => message.webhookId),
      (traceparents) => run(enqueueMessages(context(), prepared, traceparents), join),
    );
  }

  return {
    context,
    async enqueue(message, join) {
      return (await enqueueMany([message], join))[0] as EnqueueResult;
    },
    enqueueMany,
    getMessage: (id, scope) => read(() => getMessage(id, scope)),
    addEndpoint: (input) => write((ctx) => addEndpoint(ctx, input)),
    ensureEndpoint: (input) => write((ctx) => ensureEndpoint(ctx, input)),
    getEndpoint: (id, scope) => read((ctx) => getEndpoint(ctx, id, scope)),
    listEndpoints: (scope) => read((ctx) => listEndpoints(ctx, scope)),
    countEndpoints: (subscriberId, url) => read(() => countEndpoints(subscriberId, url)),
    markEndpointVerified: (id, scope, verifiedUrl) =>
      write((ctx) => markEndpointVerified(ctx, id, scope, verifiedUrl)),
    addSubscriber: (input) => write((ctx) => addSubscriber(ctx, input)),
    getSubscriber: (id) => read(() => getSubscriber(id)),
    listSubscribers: () => read(listSubscribers),
    removeSubscriber: (id) => write(() => removeSubscriber(id)),
    authenticateSubscriber: (token) => read(() => authenticateSubscriber(token)),
    rotateSubscriberToken: (id) => write(() => rotateSubscriberToken(id)),
    async sendToEndpoint(endpointId, message, scope) {
      const prepared = prepareMessage(message, catalog);
      // A key would promise a retry answers the first message; one delivery to a chosen endpoint keeps
      // no such record, so it is refused rather than ignored.
      if (prepared.idempotencyKey !== null)
        throw new InvalidMessageError("sendToEndpoint takes no idempotencyKey; nothing was queued");
      const [result] = await traceEnqueue([prepared.webhookId], async (traceparents) => {
        const sent = await write((ctx) =>
          sendToEndpoint(ctx, endpointId, prepared, traceparents[0] ?? null, scope),
        );
        return sent ? [sent] : [];
      });
      return result;
    },
    updateEndpoint: (id, changes, scope) => write((ctx) => updateEndpoint(ctx, id, changes, scope)),
    rotateEndpointSecret: (id, secret, scope) => write((ctx) => rotateEndpointSecret(ctx, id, secret, scope)),
    setEndpointStatus: (id, status, reason, scope) =>
      write((ctx) => setEndpointStatus(ctx, id, status, reason, scope)),
    removeEndpoint: (id, scope) => write(() => removeEndpoint(id, scope)),
    reencryptEndpoints: () => write(reencryptEndpoints),
    claimDue: async (request) => (request.limit <= 0 ? [] : driver.statements(claimDue(context(), request))),
    async recordAttempts(reports, options) {
      try {
        return await write((ctx) => recordAttempts(ctx, reports, options, false));
      } catch (error) {
        if (!(error instanceof StaleReadError)) throw error;
        return write((ctx) => recordAttempts(ctx, reports, options, true));
      }
    },
    release: (deliveryIds, workerId) => write((ctx) => releaseLeases(ctx, deliveryIds, workerId)),
    getDelivery: (id, scope) => read(() => getDelivery(id, scope)),
    listDeliveries: (options = {}) => read(() => listDeliveries(options)),
    listAttempts: (deliveryId, scope) => read(() => listAttempts(deliveryId, scope)),
    endpointStats: (since, scope) => read(() => endpointStats(since, scope)),
    listAlerts: (since, limit, scope) => read(() => listAlerts(since, limit, scope)),
    retryDelivery: (id, scope) => write((ctx) => retryDelivery(ctx, id, scope)),
    // Signed at the time of the listing, as a push is at its attempt's: a receiver's tolerance applies alike.
    listEvents: (endpointId, options = {}) =>
      read((ctx) => listEvents(ctx, endpointId, options, Math.floor(Date.now() / 1000))),
    listExcluded: (endpointId, options = {}) => read(() => listExcluded(endpointId, options)),
    replay: (endpointId, since, scope) => write((ctx) => replayMessages(ctx, endpointId, since, scope)),
    sweep: (options) => write((ctx) => sweepFinished(ctx, options)),
    onWork: (listener) => driver.onWork(listener),
    close: () => driver.close(),
    attemptTimeline: (since, scope) => read(() => attemptTimeline(since, scope)),
  };
}
