/** One item's outcome inside a batch: its value, or the error that refused it alone. */
export type BatchOutcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface BatcherOptions<I, R> {
  /**
   * Handles one batch (one transaction, one round trip) and answers one outcome per item, in order. A
   * throw fails the whole batch. A batch that has sent its last statement may call `release` to let the
   * next one start while it waits for that statement's answer (its callers still wait for the batch's
   * outcomes); without it, the next starts once this one is done.
   */
  flush(items: readonly I[], release: () => void): Promise<ReadonlyArray<BatchOutcome<R>>>;
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
  // The batch that has neither finished nor released: while there is one, no other starts.
  let holding = false;
  let scheduled = false;
  let inFlight = 0;
  let idleWaiters: Array<() => void> = [];
  const noRelease = () => {};

  async function settle(batch: readonly Waiting[], release: () => void): Promise<void> {
    let outcomes: ReadonlyArray<BatchOutcome<R>>;
    try {
      outcomes = await options.flush(
        batch.map((waiting) => waiting.item),
        release,
      );
    } catch (error) {
      if (batch.length === 1) {
        (batch[0] as Waiting).reject(error);
        return;
      }
      for (const waiting of batch) await settle([waiting], noRelease);
      return;
    }
    batch.forEach((waiting, index) => {
      const outcome = outcomes[index];
      if (outcome?.ok) waiting.resolve(outcome.value);
      else waiting.reject(outcome ? outcome.error : new Error("the batch answered no outcome for this item"));
    });
  }

  function start(): void {
    if (holding || queue.length === 0) return;
    const batch = queue.slice(0, maxBatch);
    queue = queue.slice(batch.length);
    holding = true;
    inFlight += 1;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      holding = false;
      // Not from inside the releasing batch's own call.
      queueMicrotask(start);
    };
    void settle(batch, release).finally(() => {
      inFlight -= 1;
      if (!released) {
        released = true;
        holding = false;
        start();
      }
      if (inFlight === 0 && queue.length === 0) {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const resolve of waiters) resolve();
      }
    });
  }

  return {
    submit(item) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (holding || scheduled) return;
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          start();
        });
      });
    },
    idle() {
      if (inFlight === 0 && queue.length === 0 && !scheduled) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
  };
}
