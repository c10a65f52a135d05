import { InvalidWorkerOptionError } from "../errors.js";

/** One item's outcome inside a batch: its value, or the error that refused it alone. */
export type BatchOutcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface BatcherOptions<I, R> {
  /**
   * Handles one batch (one transaction, one round trip) and answers one outcome per item, in order. A
   * throw fails the whole batch.
   */
  flush(items: readonly I[]): Promise<ReadonlyArray<BatchOutcome<R>>>;
  /** Most items in one batch; default 100. */
  maxBatch?: number;
  /**
   * Turns of the event loop a batch may stay open while each brings more items; default 1 (the batch
   * closes at the first turn after its first item). See `createBatcher`.
   */
  turns?: number;
}

export interface Batcher<I, R> {
  /** Adds the item to the next batch; settles with its own outcome once that batch is done. */
  submit(item: I): Promise<R>;
  /** Resolves once no batch runs and none waits. */
  idle(): Promise<void>;
}

/**
 * Group commit, for anything that writes: calls that arrive while a batch is being written share the
 * next one, instead of paying a transaction (a commit, a WAL flush) each. Nothing waits on a timer: the
 * first call starts a batch on the next turn of the event loop, and everything that arrives while it runs
 * forms the batch after it, so batches grow exactly as fast as the database falls behind. One batch runs at
 * a time. Every caller hears its answer only after its batch is done. When a batch of several fails as a
 * whole, each of its items is tried again alone, one after the other: one bad item fails only itself.
 *
 * With `turns` above 1, a batch stays open for one more turn, and for up to `turns` in all as long as
 * each brings more items: it closes at the first turn that brings none. Under load the items of a burst
 * (attempts whose answers come back over a few turns) share one transaction instead of one per turn; an
 * idle caller waits one turn more, microseconds.
 *
 * The worker records its attempts (and claims with them) through one; the Plant Store adds plants through
 * another.
 */
export function createBatcher<I, R>(options: BatcherOptions<I, R>): Batcher<I, R> {
  const maxBatch = options.maxBatch ?? 100;
  const turns = options.turns ?? 1;
  if (!Number.isInteger(turns) || turns < 1)
    throw new InvalidWorkerOptionError(`turns must be a whole number, 1 or more; got ${turns}`);
  type Waiting = { item: I; resolve: (value: R) => void; reject: (error: unknown) => void };
  let queue: Waiting[] = [];
  let running: Promise<void> | undefined;

  async function settle(batch: readonly Waiting[]): Promise<void> {
    let outcomes: ReadonlyArray<BatchOutcome<R>>;
    try {
      outcomes = await options.flush(batch.map((waiting) => waiting.item));
    } catch (error) {
      if (batch.length === 1) {
        (batch[0] as Waiting).reject(error);
        return;
      }
      for (const waiting of batch) await settle([waiting]);
      return;
    }
    batch.forEach((waiting, index) => {
      const outcome = outcomes[index];
      if (outcome?.ok) waiting.resolve(outcome.value);
      else waiting.reject(outcome ? outcome.error : new Error("the batch answered no outcome for this item"));
    });
  }

  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  /** With `turns` above 1: up to `turns - 1` more turns, while the batch is not full and each brings items. */
  async function gather(): Promise<void> {
    for (let turn = 1; turn < turns && queue.length < maxBatch; turn++) {
      const seen = queue.length;
      await nextTurn();
      if (queue.length === seen) return;
    }
  }

  async function drain(): Promise<void> {
    await nextTurn();
    await gather();
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      await settle(batch);
      // What arrived while that batch ran goes next, with the rest of its burst if it is still coming.
      if (queue.length > 0) await gather();
    }
    running = undefined;
  }

  return {
    submit(item) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        running ??= drain();
      });
    },
    async idle() {
      while (running) await running;
    },
  };
}
