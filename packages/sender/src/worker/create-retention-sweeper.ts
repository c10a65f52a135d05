import { InvalidRetentionError } from "../errors.js";
import type { Outbox, SweepResult } from "../outbox.js";
import type { SenderLogger } from "../sender-logger.js";

/** How long finished deliveries are kept by default: 30 days. */
export const DEFAULT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** Deliveries (and messages) deleted per `sweep` call by default: one short transaction each. */
export const DEFAULT_SWEEP_BATCH_SIZE = 500;
const MIN_SWEEP_INTERVAL_MS = 250;
const MAX_SWEEP_INTERVAL_MS = 60_000;

/** How long the worker keeps finished deliveries (delivered or failed) with their attempts and messages. */
export interface RetentionOptions {
  /** Finished deliveries last touched longer ago than this are deleted, with their attempts and payload. */
  maxAgeMs: number;
  /** Time between sweeps (the first runs one interval after `start()`); default a quarter of `maxAgeMs`, at least 250 ms and at most 60 s. */
  intervalMs?: number;
  /** Deliveries (and messages) deleted per transaction; default 500. */
  batchSize?: number;
}

/** What one sweep deleted, over all its batches. */
export interface SweepEvent extends SweepResult {
  /** `sweep` calls made (one more than the full batches). */
  batches: number;
  durationMs: number;
}

export interface RetentionSweeperOptions extends RetentionOptions {
  outbox: Pick<Outbox, "sweep">;
  logger?: SenderLogger | undefined;
  /** Called after every sweep that ran to the end, with what it deleted (zeros included). */
  onSweep?: ((event: SweepEvent) => void) | undefined;
}

export interface RetentionSweeper {
  readonly intervalMs: number;
  start(): void;
  /** Stops sweeping and waits for a sweep in progress to end its current batch. */
  stop(): Promise<void>;
}

function positive(name: string, value: number | undefined, integer = false): void {
  if (value === undefined) return;
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value)))
    throw new InvalidRetentionError(
      `retention.${name} must be a positive ${integer ? "integer" : "number"}, got ${value}`,
    );
}

/**
 * Retention, run by the worker: every `intervalMs` it deletes finished deliveries older than
 * `maxAgeMs`, batch after batch while a batch comes back full. Pending deliveries are the store's to
 * keep (`Outbox.sweep` never deletes them).
 */
export function createRetentionSweeper(options: RetentionSweeperOptions): RetentionSweeper {
  const { outbox, logger, maxAgeMs } = options;
  positive("maxAgeMs", maxAgeMs);
  positive("intervalMs", options.intervalMs);
  positive("batchSize", options.batchSize, true);
  const intervalMs =
    options.intervalMs ??
    Math.min(MAX_SWEEP_INTERVAL_MS, Math.max(MIN_SWEEP_INTERVAL_MS, Math.floor(maxAgeMs / 4)));
  // Always passed to the store, so a batch that comes back this size is known to be full.
  const batchSize = options.batchSize ?? DEFAULT_SWEEP_BATCH_SIZE;
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();

  async function sweepAll(): Promise<void> {
    const start = performance.now();
    const total = { deliveries: 0, attempts: 0, messages: 0, batches: 0 };
    try {
      for (;;) {
        const result = await outbox.sweep({ olderThanMs: maxAgeMs, batchSize });
        total.batches += 1;
        total.deliveries += result.deliveries;
        total.attempts += result.attempts;
        total.messages += result.messages;
        const full = result.deliveries >= batchSize || result.messages >= batchSize;
        if (!full || !running) break;
        // Each batch is a write transaction: between two, the deliveries waiting on the same database
        // (and this process's event loop) get their turn.
        await new Promise((resolve) => setImmediate(resolve));
        if (!running) break;
      }
    } catch (error) {
      // A locked or read-only database now is no reason to stop: the next interval tries again.
      logger?.warn({ err: error, ...total }, "retention sweep failed, retrying at the next interval");
      return;
    }
    const event: SweepEvent = { ...total, durationMs: Math.round(performance.now() - start) };
    if (event.deliveries + event.attempts + event.messages > 0) logger?.info(event, "retention sweep");
    try {
      options.onSweep?.(event);
    } catch (error) {
      // A throwing listener must not end retention (nor reject a timer's promise nobody awaits).
      logger?.error({ err: error }, "onSweep threw");
    }
  }

  function schedule(): void {
    // A timer set after each sweep ends, not an interval: a slow sweep never overlaps the next. Unref'd:
    // retention alone is no reason to keep a process alive (the worker's poll does that).
    timer = setTimeout(() => {
      timer = undefined;
      current = sweepAll().finally(() => {
        if (running) schedule();
      });
    }, intervalMs);
    timer.unref();
  }

  return {
    intervalMs,
    start() {
      if (running) return;
      running = true;
      // A restart right after a stop waits for the old sweep, so two never run at once.
      current = current.then(() => {
        if (running && !timer) schedule();
      });
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await current;
    },
  };
}
