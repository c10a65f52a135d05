import { randomBytes } from "node:crypto";
import type { OperationalEvent } from "@plant-store/types";
import type { AttemptEvent } from "../attempt-event.js";
import { attemptDelivery } from "../delivery/attempt-delivery.js";
import { createDeliveryClient, type DeliveryClient } from "../delivery/create-delivery-client.js";
import { createSsrfGuard, type SsrfGuard } from "../delivery/create-ssrf-guard.js";
import { InvalidWorkerOptionError } from "../errors.js";
import type { ClaimedDelivery, Outbox } from "../outbox.js";
import { RATE_LATE_MS } from "../queue/claim-allowance.js";
import { createRetryPolicy } from "../retry/create-retry-policy.js";
import type { RetryPolicy } from "../retry-policy.js";
import type { SenderLogger } from "../sender-logger.js";
import { createAttemptRunner } from "./create-attempt-runner.js";
import { createClaimLoop, RECORD_RETRY_MARGIN_MS } from "./create-claim-loop.js";
import { createEndpointSlots } from "./create-endpoint-slots.js";
import {
  createRetentionSweeper,
  DEFAULT_RETENTION_MS,
  type RetentionOptions,
  type RetentionSweeper,
  type SweepEvent,
} from "./create-retention-sweeper.js";
import { createRetryTimer } from "./create-retry-timer.js";
import { releaseDeliveries } from "./release-deliveries.js";

/** What a worker uses of an outbox (typed or not). */
export type WorkerOutbox = Pick<Outbox, "claimDue" | "recordAttempts" | "release" | "sweep" | "onWork">;

export interface WorkerOptions {
  outbox: WorkerOutbox;
  /** Default: `createDeliveryClient({ maxSockets: concurrency })` (closed on stop). */
  client?: DeliveryClient;
  /** Default: `createRetryPolicy()`. */
  policy?: RetryPolicy;
  /** Attempts in flight at once in this worker; default 16. */
  concurrency?: number;
  /** Attempts in flight at once to one endpoint; default 2. A dead endpoint holds at most this many slots. */
  perEndpointConcurrency?: number;
  /**
   * Attempts in flight at once for one owner (a subscriber's endpoints, or the operator's); default
   * `concurrency` less a quarter of it (12 of 16; 1 of 1 or 2): slots cannot be taken back from attempts
   * hanging until their timeout, so a quarter stays free for the other owners whatever one owner's
   * endpoints do. While another owner's work waits, an owner starts nothing beyond its share.
   */
  perOwnerConcurrency?: number;
  /**
   * Deliveries claimed ahead of a free slot and kept ready under the lease (an endpoint has at most
   * `perEndpointConcurrency` of them), so a finished attempt's slot starts the next one at once while
   * its record is written; default: `concurrency`. 0 claims only for free slots.
   */
  claimAhead?: number;
  /** How long a claim lasts before another worker may take it over; default max(60 s, 3 × the attempt timeout). */
  leaseMs?: number;
  /** Fallback poll for due work (retries coming due, other processes' writes); default 1000 ms. */
  pollIntervalMs?: number;
  /** Default: `createSsrfGuard()`, which refuses private targets. */
  ssrfGuard?: SsrfGuard;
  logger?: SenderLogger;
  /** Default: a random id (`w_` and 16 characters). Recorded with every lease and attempt. */
  workerId?: string;
  onAttempt?: (event: AttemptEvent) => void;
  /**
   * Each operational event an attempt caused (endpoint failing, disabled, recovered; delivery failed for
   * good), once recorded: also logged (warn) and already queued as an operational webhook.
   */
  onAlert?: (alert: OperationalEvent) => void;
  /**
   * How long finished deliveries (delivered or failed) are kept with their attempts and payloads before
   * the worker deletes them; default `{ maxAgeMs: 30 days }`. `false`: keep everything. A pending delivery
   * (due or retrying) is never deleted.
   */
  retention?: RetentionOptions | false;
  /** Called after every retention sweep with what it deleted. */
  onSweep?: (event: SweepEvent) => void;
  /**
   * The worker's clock in Unix ms: attempt start times, record deadlines, pauses; default `Date.now`.
   * What follows an attempt is decided on the outbox's clock (its own `now` option).
   */
  now?: () => number;
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

/** `concurrency` less a quarter of it, at least 1: what one owner may hold by default. */
export function defaultPerOwner(concurrency: number): number {
  return Math.max(1, concurrency - Math.max(1, Math.floor(concurrency / 4)));
}

/**
 * The delivery loop: claims due deliveries from the outbox under a lease, signs and sends each attempt,
 * and has the outbox record it, which decides what follows with the retry policy. Claims are capped per
 * endpoint, so a slow or dead endpoint occupies at most `perEndpointConcurrency` slots and the others keep
 * flowing, and per owner, so one subscriber's endpoints, however many, leave slots to the other owners;
 * claims take due work with the owners taking turns. Finished deliveries older than the retention are swept in the background.
 *
 * The parts, each testable alone: `createClaimLoop` (every round trip to the outbox: records and the
 * claims that refill the slots), `createEndpointSlots` (per-endpoint slots and waiting queues),
 * `createAttemptRunner` (one attempt, recorded, logged and reported), `createRetryTimer` (wakes for a retry
 * due before the next poll) and `createRetentionSweeper`.
 */
export function createWorker(options: WorkerOptions): Worker {
  const { outbox, logger } = options;
  const ownsClient = options.client === undefined;
  const concurrency = options.concurrency ?? 16;
  const client = options.client ?? createDeliveryClient({ maxSockets: concurrency });
  const policy = options.policy ?? createRetryPolicy();
  const guard = options.ssrfGuard ?? createSsrfGuard();
  const perEndpoint = options.perEndpointConcurrency ?? 2;
  const perOwner = options.perOwnerConcurrency ?? defaultPerOwner(concurrency);
  if (!Number.isInteger(perOwner) || perOwner < 1)
    throw new InvalidWorkerOptionError(
      `perOwnerConcurrency must be a whole number of attempts, 1 or more; got ${perOwner}`,
    );
  const leaseMs = options.leaseMs ?? Math.max(60_000, 3 * client.timeoutMs);
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const claimAhead = options.claimAhead ?? concurrency;
  if (!Number.isInteger(claimAhead) || claimAhead < 0)
    throw new InvalidWorkerOptionError(
      `claimAhead must be a whole number of deliveries, 0 or more; got ${claimAhead}`,
    );
  const now = options.now ?? Date.now;
  // 96 random bits in 18 characters: stored with every lease and attempt, so it is kept short.
  const workerId = options.workerId ?? `w_${randomBytes(12).toString("base64url")}`;
  const retention = options.retention ?? { maxAgeMs: DEFAULT_RETENTION_MS };

  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;

  // The slots start attempts, whose records go through the claim loop, which fills the slots: the loop
  // is made last and the others reach it through `claims`, only ever called later.
  const retryTimer = createRetryTimer({
    pollIntervalMs,
    isRunning: () => claims.state !== "stopped",
    onDue: () => claims.wake(),
    now,
  });
  const run = createAttemptRunner({
    workerId,
    attempt: (delivery) => attemptDelivery(delivery, client, guard, now),
    record: (report, deadline) => claims.record(report, deadline),
    leaseEnd: (delivery) => claims.leaseEnd(delivery),
    // An attempt starts only if its lease outlasts its timeout and the record after it (or, with a lease
    // set shorter than that, if it has half of its lease left, as a delivery just claimed has).
    minLeaseLeftMs: Math.min(client.timeoutMs + RECORD_RETRY_MARGIN_MS, leaseMs / 2),
    giveBack: (delivery) => releaseDeliveries(outbox, workerId, [delivery]),
    wakeAt: retryTimer.wakeAt,
    now,
    logger,
    onAttempt: options.onAttempt,
    onAlert: options.onAlert,
  });
  // A rate-limited endpoint's delivery starts at its turn in the endpoint's schedule (under a second
  // after its claim), got loaded meanwhile, or, too late for it, goes back unsent to be claimed again.
  const runOnTime = async (delivery: ClaimedDelivery, free: () => void): Promise<void> => {
    if (delivery.startInMs === undefined) return run(delivery, free);
    const startAt = claims.startAt(delivery);
    await client.load().catch(() => undefined);
    const wait = startAt - now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (now() - startAt <= RATE_LATE_MS) return run(delivery, free);
    free();
    logger?.info(
      { deliveryId: delivery.id, lateMs: now() - startAt },
      "rate-limited start missed its turn, given back",
    );
    await releaseDeliveries(outbox, workerId, [delivery]);
  };
  // A freed slot starts claimed work waiting, if any; the claim a free queues rides with the record that
  // follows in the same round trip, sized to what is free then.
  const slots = createEndpointSlots({
    perEndpoint,
    maxInFlight: concurrency,
    perOwner,
    waitingPerEndpoint: Math.min(perEndpoint, claimAhead),
    waitingPerOwner: Math.min(perOwner, claimAhead),
    run: runOnTime,
    onFree: () => claims.wake(),
  });
  const claims = createClaimLoop({
    outbox,
    workerId,
    leaseMs,
    concurrency,
    claimAhead,
    perEndpoint,
    perOwner,
    pollIntervalMs,
    policy,
    slots,
    now,
    logger,
  });
  // Built here, so a bad retention setting fails createWorker rather than start().
  const sweeper: RetentionSweeper | undefined =
    retention === false
      ? undefined
      : createRetentionSweeper({ ...retention, outbox, logger, onSweep: options.onSweep });

  return {
    id: workerId,
    get inFlight() {
      return slots.inFlight;
    },
    start() {
      if (claims.state !== "stopped") return;
      slots.open();
      unsubscribe = outbox.onWork(() => claims.wake());
      // Not unref'd: a started worker keeps the process alive, as a listening server does, until
      // stop(). Unref'd, a process whose only work was a retry due later simply exited (and a SIGTERM
      // arriving while it did killed it outright).
      timer = setInterval(() => claims.wake(), pollIntervalMs);
      sweeper?.start();
      claims.start();
    },
    wake() {
      claims.wake();
    },
    async stop() {
      claims.stop();
      if (timer) clearInterval(timer);
      retryTimer.clear();
      unsubscribe?.();
      // Claimed work still waiting for a slot goes back unattempted; an attempt finishing from now on
      // starts nothing new.
      const queued = slots.close();
      // A round trip in progress ends first (releasing what it claimed), so nothing is attempted after
      // stop() returns. A sweep in progress ends its batch, so the caller may close the outbox then.
      await Promise.all([claims.settled(), sweeper?.stop()]);
      await releaseDeliveries(outbox, workerId, queued);
      // Attempts in flight finish, and are recorded through the loop.
      await slots.idle();
      await claims.settled();
      if (ownsClient) client.close();
    },
  };
}
