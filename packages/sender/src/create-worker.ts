import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { AttemptEvent } from "./attempt-event.js";
import type { AttemptResult } from "./attempt-result.js";
import { createDeliveryClient, type DeliveryClient } from "./create-delivery-client.js";
import { createRetryPolicy, type RetryPolicy } from "./create-retry-policy.js";
import { createSsrfGuard, type SsrfGuard } from "./create-ssrf-guard.js";
import { deliver } from "./deliver.js";
import type { ClaimedDelivery, Outbox, RecordAttemptInput, RecordedAttempt } from "./outbox.js";
import type { SenderLogger } from "./sender-logger.js";
import { signDelivery } from "./sign-delivery.js";

export interface WorkerOptions {
  outbox: Outbox;
  /** Default: `createDeliveryClient({ maxSockets: concurrency })` (closed on stop). */
  client?: DeliveryClient;
  /** Default: `createRetryPolicy()`. */
  policy?: RetryPolicy;
  /** Attempts in flight at once in this worker; default 16. */
  concurrency?: number;
  /** Attempts in flight at once to one endpoint; default 2. A dead endpoint holds at most this many slots. */
  perEndpointConcurrency?: number;
  /** How long a claim lasts before another worker may take it over; default max(60 s, 3 × the attempt timeout). */
  leaseMs?: number;
  /** Fallback poll for due work (retries coming due, other processes' writes); default 1000 ms. */
  pollIntervalMs?: number;
  /** Default: `createSsrfGuard()`, which refuses private targets. */
  ssrfGuard?: SsrfGuard;
  logger?: SenderLogger;
  /** Default: a random id. Recorded with every attempt. */
  workerId?: string;
  onAttempt?: (event: AttemptEvent) => void;
}

export interface Worker {
  readonly id: string;
  start(): void;
  /** Claims due work now instead of waiting for the next poll. */
  wake(): void;
  /** Stops claiming, gives back claimed but unstarted work, and waits for attempts in flight. */
  stop(): Promise<void>;
  /** Attempts in flight right now. */
  readonly inFlight: number;
}

// A name lookup slower than this takes its time out of the request's timeout, keeping the attempt within its budget.
const SLOW_LOOKUP_MS = 100;
/** Stop retrying a failed record this long before the lease ends: past it another worker may take over. */
const RECORD_RETRY_MARGIN_MS = 1_000;

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : "ERR_DELIVERY";
}

/**
 * The delivery loop: claims due deliveries from the outbox under a lease, signs and sends each
 * attempt, records it and lets the retry policy decide what comes next. Claims are capped per
 * endpoint, so a slow or dead endpoint occupies at most `perEndpointConcurrency` slots and the
 * others keep flowing.
 */
export function createWorker(options: WorkerOptions): Worker {
  const { outbox, logger } = options;
  const ownsClient = options.client === undefined;
  const concurrency = options.concurrency ?? 16;
  const client = options.client ?? createDeliveryClient({ maxSockets: concurrency });
  const policy = options.policy ?? createRetryPolicy();
  const guard = options.ssrfGuard ?? createSsrfGuard();
  const perEndpoint = options.perEndpointConcurrency ?? 2;
  const leaseMs = options.leaseMs ?? Math.max(60_000, 3 * client.timeoutMs);
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const workerId = options.workerId ?? `worker-${randomUUID()}`;

  const inFlight = new Set<Promise<void>>();
  // Claimed beyond an endpoint's free slots: held under our lease until a slot frees.
  const waiting = new Map<number, ClaimedDelivery[]>();
  const busy = new Map<number, number>();
  let running = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  // After a failed claim, claims pause (doubling up to 5 s): a locked SQLite file blocks the whole
  // process for its busy timeout on every try, so claiming at the poll rate would freeze everything else.
  let claimFailures = 0;
  let pausedUntil = 0;
  let unsubscribe: (() => void) | undefined;

  const waitingCount = () => [...waiting.values()].reduce((sum, list) => sum + list.length, 0);

  async function attemptOnce(delivery: ClaimedDelivery): Promise<AttemptResult> {
    const startedAt = new Date();
    const start = performance.now();
    try {
      // The lookup shares the attempt's time: a name whose DNS hangs fails the attempt (ERR_DNS_TIMEOUT)
      // instead of holding its slot and lease indefinitely.
      const pinnedAddress = await guard.check(delivery.endpoint.url, { timeoutMs: client.timeoutMs });
      const lookupMs = performance.now() - start;
      const headers = signDelivery({
        webhookId: delivery.webhookId,
        body: delivery.body,
        secrets: delivery.endpoint.secrets,
        token: delivery.endpoint.token,
      });
      return await deliver(client, delivery.endpoint.url, {
        body: delivery.body,
        headers,
        pinnedAddress,
        // A lookup of a few ms is not worth a timer of our own; a slow one shortens the request.
        ...(lookupMs >= SLOW_LOOKUP_MS ? { timeoutMs: client.timeoutMs - lookupMs } : {}),
      });
    } catch (error) {
      return {
        status: null,
        error: errorCode(error),
        startedAt,
        durationMs: Math.round(performance.now() - start),
        responseBody: "",
      };
    }
  }

  // Attempts finishing in one turn of the event loop are recorded in one transaction when the outbox
  // can (one commit instead of one each). Each attempt is still recorded in the same transaction that
  // moves its delivery on, and nobody hears "recorded" before the commit.
  type PendingRecord = {
    input: RecordAttemptInput;
    resolve: (recorded: RecordedAttempt) => void;
    reject: (error: unknown) => void;
  };
  let pendingRecords: PendingRecord[] = [];
  function flushRecords(): void {
    const batch = pendingRecords;
    pendingRecords = [];
    const many = outbox.recordAttempts?.bind(outbox);
    if (!many || batch.length === 1) {
      for (const item of batch) outbox.recordAttempt(item.input).then(item.resolve, item.reject);
      return;
    }
    many(batch.map((item) => item.input)).then(
      (results) => {
        batch.forEach((item, index) => {
          item.resolve(results[index] ?? { held: false, outcome: item.input.outcome });
        });
      },
      // One bad record must not sink the others: on any failure each is tried alone.
      () => {
        for (const item of batch) outbox.recordAttempt(item.input).then(item.resolve, item.reject);
      },
    );
  }
  function record(input: RecordAttemptInput): Promise<RecordedAttempt> {
    return new Promise((resolve, reject) => {
      pendingRecords.push({ input, resolve, reject });
      if (pendingRecords.length === 1) setImmediate(flushRecords);
    });
  }

  // A record that fails (deadlock, lock timeout, busy or read-only file) is retried with a growing
  // pause for as long as the lease lasts: it runs in one transaction, so a retry cannot record twice,
  // and giving up leaves the delivery stuck under its lease (a minute or more) before anyone may
  // attempt it again. A stopping worker tries three times, so shutdown is not held up by a broken store.
  async function recordWithRetry(input: RecordAttemptInput): Promise<RecordedAttempt> {
    const leaseLeft = Math.min(
      (input.leaseUntil?.getTime() ?? Number.POSITIVE_INFINITY) - Date.now(),
      leaseMs,
    );
    const giveUpAt = performance.now() + leaseLeft - RECORD_RETRY_MARGIN_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        return await record(input);
      } catch (error) {
        const pause = Math.min(100 * attempt, 2_000);
        if ((!running && attempt >= 3) || performance.now() + pause >= giveUpAt) throw error;
        logger?.warn({ deliveryId: input.deliveryId, err: error }, "recording an attempt failed, retrying");
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  async function run(delivery: ClaimedDelivery): Promise<void> {
    const result = await attemptOnce(delivery);
    const decision = policy.decide({ result, roundAttempts: delivery.roundAttempts + 1 });
    const decidedAt = Date.now();
    const event: AttemptEvent = {
      deliveryId: delivery.id,
      webhookId: delivery.webhookId,
      messageId: delivery.messageId,
      endpointId: delivery.endpointId,
      attempt: delivery.attemptCount + 1,
      status: result.status,
      error: result.error,
      durationMs: result.durationMs,
      outcome: decision.outcome,
      queuedAt: delivery.createdAt.toISOString(),
    };
    if (decision.nextAttemptAt) event.nextAttemptAt = decision.nextAttemptAt.toISOString();
    let disabledEndpoint: string | undefined;
    try {
      const recorded = await recordWithRetry({
        deliveryId: delivery.id,
        workerId,
        leaseUntil: delivery.leaseUntil,
        attempt: {
          startedAt: result.startedAt,
          durationMs: result.durationMs,
          status: result.status,
          error: result.error,
          responseBody: result.responseBody,
        },
        outcome: decision.outcome,
        ...(decision.nextAttemptAt ? { nextAttemptAt: decision.nextAttemptAt } : {}),
        endpointSucceeded: decision.endpointSucceeded,
        ...(decision.disableEndpoint ? { disableEndpoint: decision.disableEndpoint } : {}),
        disableAfterMs: policy.disableAfterMs,
        failureGapMs: policy.failureGapMs ?? policy.disableAfterMs,
      });
      if (!recorded.held)
        logger?.warn({ deliveryId: delivery.id }, "lease lost before the attempt was recorded");
      // The store may have disabled the endpoint on this failure (failing for too long): report what it stored.
      if (recorded.outcome !== event.outcome) {
        event.outcome = recorded.outcome;
        delete event.nextAttemptAt;
      }
      disabledEndpoint = recorded.disabledEndpoint;
      // Counted from now, once recorded: a store that keeps its own clock (PostgreSQL) stored the
      // delay from its time of writing, later than the decision; waking at the decided instant
      // could find nothing due yet, and nothing would wake the worker again before the next poll.
      if (recorded.held && decision.nextAttemptAt && event.outcome === "retrying")
        wakeAt(Date.now() + Math.max(0, decision.nextAttemptAt.getTime() - decidedAt));
    } catch (error) {
      // The lease runs out and the delivery is attempted again: at least once, never lost.
      logger?.error({ deliveryId: delivery.id, err: error }, "could not record attempt");
    }
    // The worker id ties a log line to the lease owner and attempt rows in the database.
    logger?.info({ ...event, workerId }, "delivery attempt");
    if (disabledEndpoint) {
      logger?.warn({ endpointId: delivery.endpointId, reason: disabledEndpoint }, "endpoint disabled");
    }
    options.onAttempt?.(event);
  }

  function launch(delivery: ClaimedDelivery): void {
    busy.set(delivery.endpointId, (busy.get(delivery.endpointId) ?? 0) + 1);
    const task = run(delivery).finally(() => {
      inFlight.delete(task);
      const left = (busy.get(delivery.endpointId) ?? 1) - 1;
      if (left > 0) busy.set(delivery.endpointId, left);
      else busy.delete(delivery.endpointId);
      const queue = waiting.get(delivery.endpointId);
      const next = queue?.shift();
      if (queue && queue.length === 0) waiting.delete(delivery.endpointId);
      if (next && running) launch(next);
      else if (next) void outbox.release(next.id, workerId).catch(() => undefined);
      scheduleTick();
    });
    inFlight.add(task);
  }

  // Attempts that finish in the same turn of the event loop share one claim (one transaction for
  // several free slots) instead of claiming one row each.
  let tickScheduled = false;
  function scheduleTick(): void {
    if (tickScheduled) return;
    tickScheduled = true;
    setImmediate(() => {
      tickScheduled = false;
      tick();
    });
  }

  // A retry due before the next poll wakes the worker when it is due: one timer, for the earliest.
  let retryTimer: NodeJS.Timeout | undefined;
  let retryTimerAt = Number.POSITIVE_INFINITY;
  function wakeAt(at: number): void {
    const delay = at - Date.now();
    if (!running || delay >= pollIntervalMs || at >= retryTimerAt) return;
    if (retryTimer) clearTimeout(retryTimer);
    retryTimerAt = at;
    // Node counts a timer from the event loop's cached time, which lags the clock by however long the
    // current turn has run: on a busy process the timer fires early, the retry is not due yet and
    // nothing would wake the worker again before the next poll. So it checks, and waits out the rest.
    const fire = () => {
      const left = retryTimerAt - Date.now();
      if (left > 0) {
        retryTimer = setTimeout(fire, left);
        retryTimer.unref();
        return;
      }
      retryTimer = undefined;
      retryTimerAt = Number.POSITIVE_INFINITY;
      tick();
    };
    retryTimer = setTimeout(fire, Math.max(0, delay));
    retryTimer.unref();
  }

  // The latest claim: stop() waits for it, so nothing a claim returns is attempted after stop().
  let claiming = false;
  let current: Promise<void> = Promise.resolve();

  function tick(): void {
    if (!running || Date.now() < pausedUntil) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    current = claimLoop();
  }

  async function claimLoop(): Promise<void> {
    try {
      do {
        again = false;
        const free = concurrency - inFlight.size - waitingCount();
        if (free <= 0) break;
        const full = [...new Set([...busy.keys(), ...waiting.keys()])].filter(
          (id) => (busy.get(id) ?? 0) + (waiting.get(id)?.length ?? 0) >= perEndpoint,
        );
        const claimed = await outbox.claimDue(workerId, free, leaseMs, {
          perEndpointLimit: perEndpoint,
          excludeEndpointIds: full,
        });
        claimFailures = 0;
        if (!running) {
          // stop() was called while the claim ran: give everything back unattempted. Attempting it now
          // could send it after the caller closed the outbox, unrecorded, to be sent again after the lease.
          await releaseAll(claimed);
          return;
        }
        for (const delivery of claimed) {
          if ((busy.get(delivery.endpointId) ?? 0) < perEndpoint) launch(delivery);
          else waiting.set(delivery.endpointId, [...(waiting.get(delivery.endpointId) ?? []), delivery]);
        }
        if (claimed.length === free) again = true;
      } while (again && running);
    } catch (error) {
      claimFailures += 1;
      const pauseMs = Math.min(5000, pollIntervalMs * 2 ** claimFailures);
      pausedUntil = Date.now() + pauseMs;
      logger?.error({ err: error, retryInMs: pauseMs }, "claiming due deliveries failed");
    } finally {
      claiming = false;
    }
  }

  async function releaseAll(deliveries: readonly ClaimedDelivery[]): Promise<void> {
    await Promise.all(
      deliveries.map((delivery) => outbox.release(delivery.id, workerId).catch(() => undefined)),
    );
  }

  return {
    id: workerId,
    get inFlight() {
      return inFlight.size;
    },
    start() {
      if (running) return;
      running = true;
      unsubscribe = outbox.onWork(() => tick());
      // Not unref'd: a started worker keeps the process alive, as a listening server does, until
      // stop(). Unref'd, a process whose only work was a retry due later simply exited (and a SIGTERM
      // arriving while it did killed it outright).
      timer = setInterval(() => tick(), pollIntervalMs);
      tick();
    },
    wake() {
      tick();
    },
    async stop() {
      running = false;
      if (timer) clearInterval(timer);
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = undefined;
      retryTimerAt = Number.POSITIVE_INFINITY;
      unsubscribe?.();
      // A claim in progress ends first (releasing what it got), so nothing is attempted after stop() returns.
      await current;
      const queued = [...waiting.values()].flat();
      waiting.clear();
      await releaseAll(queued);
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      if (ownsClient) client.close();
    },
  };
}
