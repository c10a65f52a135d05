import type { EndpointSlots } from "./create-endpoint-slots.js";
import type { ClaimedDelivery, ClaimRequest, Outbox } from "./outbox.js";
import { releaseDeliveries } from "./release-deliveries.js";
import type { SenderLogger } from "./sender-logger.js";

/** The longest pause between claims after claims keep failing. */
export const MAX_CLAIM_PAUSE_MS = 5_000;

export interface ClaimLoopOptions {
  outbox: Pick<Outbox, "claimDue" | "release">;
  workerId: string;
  leaseMs: number;
  /** Attempts in flight plus claimed work waiting, at most, in this worker. */
  concurrency: number;
  perEndpoint: number;
  /** The first pause after a failed claim; it doubles with each failure in a row. */
  pollIntervalMs: number;
  slots: Pick<EndpointSlots, "inFlight" | "waitingCount" | "full" | "add">;
  /** False once the worker is stopping: nothing more is claimed, and what a claim returns goes back. */
  isRunning: () => boolean;
  logger?: SenderLogger | undefined;
}

/** A claim to make together with a record, and where its result goes. */
export interface ClaimTicket {
  request: ClaimRequest;
  /** Exactly once: the deliveries the claim got, or undefined when it failed (nothing was claimed). */
  settle(claimed: readonly ClaimedDelivery[] | undefined): void;
}

export interface ClaimLoop {
  /** Claims due work while free slots remain (or, while a claim runs, claims again after it). */
  tick(): void;
  /** `tick()` on the next turn of the event loop, once however many ask for it in this turn. */
  scheduleTick(): void;
  /** Resolves when the claim in progress, if any, has ended (and released what it got after a stop). */
  settled(): Promise<void>;
  /**
   * A claim for the slots that attempts about to be recorded will free (`freeing`: each one's endpoint),
   * to make in the record's own transaction; undefined while another claim runs or the worker stops.
   * The loop counts it as its claim in progress until `settle`.
   */
  ticket(freeing: readonly number[]): ClaimTicket | undefined;
}

/**
 * Claims due deliveries for the worker's free slots, one claim at a time, and hands them to the
 * per-endpoint slots. Endpoints with no slot left are excluded from the claim, so a slow endpoint's
 * backlog never takes the slots of the others.
 */
export function createClaimLoop(options: ClaimLoopOptions): ClaimLoop {
  const { outbox, workerId, leaseMs, concurrency, perEndpoint, pollIntervalMs, slots, isRunning, logger } =
    options;
  let again = false;
  // After a failed claim, claims pause (doubling up to 5 s): a locked SQLite file blocks the whole
  // process for its busy timeout on every try, so claiming at the poll rate would freeze everything else.
  let claimFailures = 0;
  let pausedUntil = 0;
  // The latest claim: stop() waits for it, so nothing a claim returns is attempted after stop().
  let claiming = false;
  let current: Promise<void> = Promise.resolve();
  let tickScheduled = false;

  async function claimLoop(): Promise<void> {
    try {
      do {
        again = false;
        const free = concurrency - slots.inFlight - slots.waitingCount;
        if (free <= 0) break;
        const claimed = await outbox.claimDue(workerId, free, leaseMs, {
          perEndpointLimit: perEndpoint,
          excludeEndpointIds: slots.full(),
        });
        claimFailures = 0;
        if (!isRunning()) {
          // stop() was called while the claim ran: give everything back unattempted. Attempting it now
          // could send it after the caller closed the outbox, unrecorded, to be sent again after the lease.
          await releaseDeliveries(outbox, workerId, claimed);
          return;
        }
        for (const delivery of claimed) slots.add(delivery);
        if (claimed.length === free) again = true;
      } while (again && isRunning());
    } catch (error) {
      claimFailures += 1;
      const pauseMs = Math.min(MAX_CLAIM_PAUSE_MS, pollIntervalMs * 2 ** claimFailures);
      pausedUntil = Date.now() + pauseMs;
      logger?.error({ err: error, retryInMs: pauseMs }, "claiming due deliveries failed");
    } finally {
      claiming = false;
    }
  }

  function ticket(freeing: readonly number[]): ClaimTicket | undefined {
    if (claiming || !isRunning() || Date.now() < pausedUntil) return undefined;
    const limit = concurrency - slots.inFlight - slots.waitingCount + freeing.length;
    if (limit <= 0) return undefined;
    claiming = true;
    let done: () => void = () => undefined;
    current = new Promise<void>((resolve) => {
      done = resolve;
    });
    let settled = false;
    return {
      request: {
        workerId,
        limit,
        leaseMs,
        options: { perEndpointLimit: perEndpoint, excludeEndpointIds: slots.full(freeing) },
      },
      settle(claimed) {
        if (settled) return;
        settled = true;
        const finish = () => {
          claiming = false;
          done();
          // More may be due (a full claim), or the claim failed: the loop claims on its own again.
          if (claimed === undefined || claimed.length === limit || again) scheduleTick();
        };
        if (claimed === undefined) return finish();
        if (!isRunning()) {
          void releaseDeliveries(outbox, workerId, claimed).finally(finish);
          return;
        }
        for (const delivery of claimed) slots.add(delivery);
        finish();
      },
    };
  }

  function scheduleTick(): void {
    if (tickScheduled) return;
    tickScheduled = true;
    setImmediate(() => {
      tickScheduled = false;
      tick();
    });
  }

  function tick(): void {
    if (!isRunning() || Date.now() < pausedUntil) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    current = claimLoop();
  }

  return {
    tick,
    // Attempts that finish in the same turn of the event loop share one claim (one transaction for
    // several free slots) instead of claiming one row each.
    scheduleTick,
    settled() {
      return current;
    },
    ticket,
  };
}
