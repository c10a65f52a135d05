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
 * The worker records its attempts (and claims with them) through one; the Plant Store adds plants through
 * another.
 */
export function createBatcher<I, R>(options: BatcherOptions<I, R>): Batcher<I, R> {
  const maxBatch = options.maxBatch ?? 100;
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

  async function drain(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      await settle(batch);
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
