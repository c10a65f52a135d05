import type {
  AttemptReport,
  ClaimedDelivery,
  ClaimRequest,
  Outbox,
  RecordedAttempt,
  RecordOptions,
} from "../outbox.js";
import type { SenderLogger } from "../sender-logger.js";
import { createBatcher } from "./create-batcher.js";
import type { EndpointSlots } from "./create-endpoint-slots.js";
import { releaseDeliveries } from "./release-deliveries.js";

/** The longest pause between claims after claims keep failing. */
export const MAX_CLAIM_PAUSE_MS = 5_000;

/**
 * Turns of the event loop a round trip waits while finished attempts keep arriving (`createBatcher`'s
 * `turns`): the answers of a burst of requests come back over a few turns, and one transaction recording
 * them all (and claiming their replacements) costs less than one per turn. An idle worker's record or claim
 * waits one turn more than with 1 (microseconds): a turn that brings nothing closes the batch.
 */
export const ROUND_TRIP_TURNS = 4;

/** Stop retrying a failed record this long before the lease ends: past it another worker may take over. */
export const RECORD_RETRY_MARGIN_MS = 1_000;

export interface ClaimLoopOptions {
  outbox: Pick<Outbox, "claimDue" | "recordAttempts" | "release">;
  workerId: string;
  leaseMs: number;
  /** Attempts in flight at once in this worker. */
  concurrency: number;
  /**
   * Deliveries claimed beyond the free slots, kept ready (and leased) so a finished attempt's slot starts
   * the next at once instead of waiting for the round trip that records it; default 0.
   */
  claimAhead?: number;
  perEndpoint: number;
  /** At most this many deliveries of one owner per claim; default: no cap besides `perEndpoint`. */
  perOwner?: number;
  /** The first pause after a failed claim; it doubles with each failure in a row. */
  pollIntervalMs: number;
  /** The retry policy the outbox decides with when it records an attempt. */
  policy: RecordOptions["policy"];
  slots: Pick<EndpointSlots, "inFlight" | "waitingCount" | "full" | "add"> &
    Partial<Pick<EndpointSlots, "fullOwners">>;
  /** The worker's clock (Unix ms), for pauses and record deadlines. */
  now: () => number;
  logger?: SenderLogger | undefined;
  /** Turns a round trip waits while finished attempts keep arriving; default `ROUND_TRIP_TURNS`. */
  turns?: number;
}

/**
 * The loop's one state:
 * - `stopped`: not started, or stopped. Nothing is claimed; what a round trip still brings back is released.
 * - `idle`: running, and no claim is waiting to be made. A wake (poll, NOTIFY, retry timer) queues one.
 * - `queued`: a claim waits for the next round trip. More wakes change nothing: it is sized from the free
 *   slots as they are when the round trip starts. Once it starts, the loop is `idle` again, so a wake
 *   during a round trip queues the next claim (the running one may not see what the wake announced).
 * - `paused`: the last claim failed; wakes are ignored until `pausedUntil` (doubling from the poll interval
 *   up to 5 s: a locked SQLite file blocks the whole process for its busy timeout on every try), then the
 *   first wake queues a claim. Records still go through, without a claim riding along.
 */
export type ClaimLoopState = "stopped" | "idle" | "queued" | "paused";

export interface ClaimLoop {
  readonly state: ClaimLoopState;
  start(): void;
  /** Due work may be waiting: claim it (see `ClaimLoopState` for when that happens). */
  wake(): void;
  /**
   * Records a finished attempt (retried, with a growing pause, until `deadline` on the worker's clock),
   * and answers what the outbox decided. The slot it frees is filled in the same round trip: the claim
   * rides along with the record.
   */
  record(report: AttemptReport, deadline: number): Promise<RecordedAttempt | undefined>;
  /**
   * When a delivery this loop claimed stops being held, on the worker's clock: the round trip that
   * leased it started no earlier than that lease, so this is never later than the store's lease end.
   */
  leaseEnd(delivery: ClaimedDelivery): number;
  /**
   * When the delivery may be sent, on the worker's clock: its claim's answer plus its `startInMs` (a
   * rate-limited endpoint's schedule), or at once.
   */
  startAt(delivery: ClaimedDelivery): number;
  stop(): void;
  /** Resolves once no round trip is running or waiting (after `stop`, what they claimed is released). */
  settled(): Promise<void>;
}

type Item = { kind: "claim" } | { kind: "record"; report: AttemptReport };
type Answer = RecordedAttempt | undefined;

/**
 * Every round trip the worker makes to its outbox, one at a time, through one batcher: the attempts that
 * finished since the last one are recorded in one transaction, which also claims the work that replaces
 * them (and any claim a wake queued). A finished attempt's path is runner → `record` → batch → outbox,
 * and the claim that follows is decided here, from the slots, never by a call back into the loop.
 */
export function createClaimLoop(options: ClaimLoopOptions): ClaimLoop {
  const { outbox, workerId, leaseMs, concurrency, perEndpoint, pollIntervalMs, slots, now, logger } = options;
  // Leased at most: the attempts in flight, the claimed work waiting, and attempts being recorded.
  const capacity = concurrency + (options.claimAhead ?? 0);
  let state: ClaimLoopState = "stopped";
  // Attempts whose slot is free and whose record has not answered yet: still leased by this worker.
  let recording = 0;
  let claimFailures = 0;
  let pausedUntil = 0;
  const leaseEnds = new WeakMap<ClaimedDelivery, number>();
  const startAts = new WeakMap<ClaimedDelivery, number>();

  /** The claim a round trip makes for what is free, counting the `ending` attempts it records as ended. */
  function claimFor(ending: number): ClaimRequest | undefined {
    if (state === "stopped" || state === "paused") return undefined;
    const limit = capacity - slots.inFlight - slots.waitingCount - (recording - ending);
    if (limit <= 0) return undefined;
    const request: ClaimRequest = {
      workerId,
      limit,
      leaseMs,
      perEndpointLimit: perEndpoint,
      excludeEndpointIds: slots.full(),
    };
    if (options.perOwner !== undefined) request.perOwnerLimit = options.perOwner;
    const fullOwners = slots.fullOwners?.() ?? [];
    if (fullOwners.length > 0) request.excludeOwners = fullOwners;
    return request;
  }

  function claimFailed(error: unknown): void {
    claimFailures += 1;
    const pauseMs = Math.min(MAX_CLAIM_PAUSE_MS, pollIntervalMs * 2 ** claimFailures);
    pausedUntil = now() + pauseMs;
    if (state !== "stopped") state = "paused";
    logger?.error({ err: error, retryInMs: pauseMs }, "claiming due deliveries failed");
  }

  /** One round trip: the records of `items` and a claim for the free slots, in one outbox call. */
  async function exchange(records: ReadonlyArray<Extract<Item, { kind: "record" }>>, claim?: ClaimRequest) {
    if (records.length > 0)
      return outbox.recordAttempts(
        records.map((item) => item.report),
        claim ? { policy: options.policy, claim } : { policy: options.policy },
      );
    return { recorded: [], claimed: claim ? await outbox.claimDue(claim) : [] };
  }

  async function roundTrip(items: readonly Item[]) {
    // The claim a wake queued is being made: a wake from now on queues the next one.
    if (state === "queued" && items.some((item) => item.kind === "claim")) state = "idle";
    const records = items.flatMap((item) => (item.kind === "record" ? [item] : []));
    const claim = claimFor(records.length);
    const leaseEnd = now() + leaseMs;
    let answer: { recorded: Answer[]; claimed: ClaimedDelivery[] };
    try {
      answer = await exchange(records, claim);
    } catch (error) {
      if (records.length > 0) throw error;
      claimFailed(error);
      return items.map(() => ({ ok: true as const, value: undefined }));
    }
    const { recorded, claimed } = answer;
    if (claim) claimFailures = 0;
    if (state === "stopped") {
      // stop() was called while the round trip ran: give it back unattempted. Attempting it now could
      // send it after the caller closed the outbox, unrecorded, to be sent again after the lease.
      await releaseDeliveries(outbox, workerId, claimed);
    } else {
      // A wait counts from the answer, never from before it: a start is never earlier than its schedule.
      const answeredAt = now();
      for (const delivery of claimed) {
        leaseEnds.set(delivery, leaseEnd);
        if (delivery.startInMs !== undefined && delivery.startInMs > 0)
          startAts.set(delivery, answeredAt + delivery.startInMs);
        slots.add(delivery);
      }
      // A full claim: more may be due.
      if (claim && claimed.length === claim.limit) wake();
    }
    let next = 0;
    return items.map((item) => ({
      ok: true as const,
      value: item.kind === "record" ? recorded[next++] : undefined,
    }));
  }

  const batcher = createBatcher<Item, Answer>({ flush: roundTrip, turns: options.turns ?? ROUND_TRIP_TURNS });

  function wake(): void {
    if (state === "paused" && now() >= pausedUntil) state = "idle";
    if (state !== "idle") return;
    state = "queued";
    void batcher.submit({ kind: "claim" });
  }

  // A record that fails (deadlock, lock timeout, busy or read-only file) is retried with a growing pause
  // for as long as the lease lasts: it runs in one transaction, so a retry cannot record twice, and giving
  // up leaves the delivery stuck under its lease (a minute or more) before anyone may attempt it again. A
  // stopping worker tries three times, so shutdown is not held up by a broken store.
  async function record(report: AttemptReport, deadline: number): Promise<Answer> {
    const giveUpAt = Math.min(deadline, now() + leaseMs) - RECORD_RETRY_MARGIN_MS;
    recording += 1;
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          return await batcher.submit({ kind: "record", report });
        } catch (error) {
          const pause = Math.min(100 * attempt, 2_000);
          if ((state === "stopped" && attempt >= 3) || now() + pause >= giveUpAt) throw error;
          logger?.warn(
            { deliveryId: report.deliveryId, err: error },
            "recording an attempt failed, retrying",
          );
          await new Promise((resolve) => setTimeout(resolve, pause));
        }
      }
    } finally {
      recording -= 1;
    }
  }

  return {
    get state() {
      return state;
    },
    start() {
      if (state === "stopped") state = "idle";
      wake();
    },
    wake,
    record,
    leaseEnd: (delivery) => leaseEnds.get(delivery) ?? now() + leaseMs,
    startAt: (delivery) => startAts.get(delivery) ?? now(),
    stop() {
      state = "stopped";
    },
    settled: () => batcher.idle(),
  };
}
