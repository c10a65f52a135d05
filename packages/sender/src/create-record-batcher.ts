import type { ClaimTicket } from "./create-claim-loop.js";
import type { Outbox, RecordAttemptInput, RecordedAttempt } from "./outbox.js";
import type { SenderLogger } from "./sender-logger.js";

/** Stop retrying a failed record this long before the lease ends: past it another worker may take over. */
export const RECORD_RETRY_MARGIN_MS = 1_000;

export interface RecordBatcherOptions {
  outbox: Pick<Outbox, "recordAttempt" | "recordAttempts" | "recordAttemptsAndClaim">;
  /**
   * A claim to make in the batch's transaction, for the slots its attempts free (`freeing`: each one's
   * endpoint); used when the outbox has `recordAttemptsAndClaim`.
   */
  claimTicket?: (freeing: readonly number[]) => ClaimTicket | undefined;
  /** The worker's lease: a record is never retried for longer than this. */
  leaseMs: number;
  /** False once the worker is stopping: a failing record is then tried three times only. */
  isRunning: () => boolean;
  logger?: SenderLogger | undefined;
}

export interface RecordBatcher {
  /**
   * Records one attempt, batched with the others finishing in this turn of the event loop. `endpointId`
   * (the delivery's) lets the batch claim replacement work for the slot the attempt frees.
   */
  record(input: RecordAttemptInput, endpointId?: number): Promise<RecordedAttempt>;
  /** `record`, retried with a growing pause while the attempt's lease lasts. */
  recordWithRetry(input: RecordAttemptInput, endpointId?: number): Promise<RecordedAttempt>;
}

type PendingRecord = {
  input: RecordAttemptInput;
  endpointId: number | undefined;
  resolve: (recorded: RecordedAttempt) => void;
  reject: (error: unknown) => void;
};

/**
 * Attempts finishing in one turn of the event loop are recorded in one transaction (one commit
 * instead of one each), which also claims the work that replaces them when the outbox can
 * (`recordAttemptsAndClaim`): the claim then costs no commit of its own. Each attempt is still recorded
 * in the same transaction that moves its delivery on, and nobody hears "recorded" before the commit.
 */
export function createRecordBatcher(options: RecordBatcherOptions): RecordBatcher {
  const { outbox, leaseMs, isRunning, logger } = options;
  let pending: PendingRecord[] = [];

  // With a store that records and claims together (PostgreSQL), one record transaction runs at a time
  // and the attempts finishing meanwhile form the next batch: bigger batches, fewer commits, no timer.
  const oneAtATime = outbox.recordAttemptsAndClaim !== undefined;
  let flushing = false;

  function eachAlone(batch: readonly PendingRecord[]): Promise<unknown> {
    return Promise.allSettled(
      batch.map((item) => outbox.recordAttempt(item.input).then(item.resolve, item.reject)),
    );
  }

  function flush(): void {
    const batch = pending;
    pending = [];
    const done = write(batch);
    if (!oneAtATime) return;
    flushing = true;
    void done.finally(() => {
      flushing = false;
      if (pending.length > 0) setImmediate(flush);
    });
  }

  function write(batch: readonly PendingRecord[]): Promise<unknown> {
    const combined = outbox.recordAttemptsAndClaim?.bind(outbox);
    const freeing = batch.flatMap((item) => (item.endpointId === undefined ? [] : [item.endpointId]));
    const ticket = combined && freeing.length === batch.length ? options.claimTicket?.(freeing) : undefined;
    if (combined && ticket) {
      return combined(
        batch.map((item) => item.input),
        ticket.request,
      ).then(
        ({ recorded, claimed }) => {
          ticket.settle(claimed);
          batch.forEach((item, index) => {
            item.resolve(recorded[index] ?? { held: false, outcome: item.input.outcome });
          });
        },
        () => {
          ticket.settle(undefined);
          return eachAlone(batch);
        },
      );
    }
    if (batch.length === 1) return eachAlone(batch);
    return outbox.recordAttempts(batch.map((item) => item.input)).then(
      (results) => {
        batch.forEach((item, index) => {
          item.resolve(results[index] ?? { held: false, outcome: item.input.outcome });
        });
      },
      // One bad record must not sink the others: on any failure each is tried alone.
      () => eachAlone(batch),
    );
  }

  function record(input: RecordAttemptInput, endpointId?: number): Promise<RecordedAttempt> {
    return new Promise((resolve, reject) => {
      pending.push({ input, endpointId, resolve, reject });
      if (pending.length === 1 && !flushing) setImmediate(flush);
    });
  }

  // A record that fails (deadlock, lock timeout, busy or read-only file) is retried with a growing
  // pause for as long as the lease lasts: it runs in one transaction, so a retry cannot record twice,
  // and giving up leaves the delivery stuck under its lease (a minute or more) before anyone may
  // attempt it again. A stopping worker tries three times, so shutdown is not held up by a broken store.
  async function recordWithRetry(input: RecordAttemptInput, endpointId?: number): Promise<RecordedAttempt> {
    const leaseLeft = Math.min(
      (input.leaseUntil?.getTime() ?? Number.POSITIVE_INFINITY) - Date.now(),
      leaseMs,
    );
    const giveUpAt = performance.now() + leaseLeft - RECORD_RETRY_MARGIN_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        return await record(input, endpointId);
      } catch (error) {
        const pause = Math.min(100 * attempt, 2_000);
        if ((!isRunning() && attempt >= 3) || performance.now() + pause >= giveUpAt) throw error;
        logger?.warn({ deliveryId: input.deliveryId, err: error }, "recording an attempt failed, retrying");
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  return { record, recordWithRetry };
}
