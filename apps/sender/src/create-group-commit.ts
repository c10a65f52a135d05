/** One item's outcome inside a group: its value, or the error that rolled back its part alone. */
export type GroupOutcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface GroupCommitOptions {
  /** Most items in one transaction; default 100. */
  maxBatch?: number;
}

/**
 * Group commit: calls that arrive while a transaction is being prepared or committed share the next
 * one, instead of paying a commit (a WAL flush on PostgreSQL) each. Nothing waits on a timer: the first
 * call starts a group on the next turn of the event loop, and everything that arrives while it runs
 * forms the group after it. `flush` runs one transaction for its items, each in a savepoint of its own,
 * and answers one outcome per item; every caller hears its answer only after the commit, and all of
 * them hear the error when the commit itself fails.
 */
export function createGroupCommit<I, R>(
  flush: (items: readonly I[]) => Promise<Array<GroupOutcome<R>>>,
  options: GroupCommitOptions = {},
): (item: I) => Promise<R> {
  const maxBatch = options.maxBatch ?? 100;
  type Waiting = { item: I; resolve: (value: R) => void; reject: (error: unknown) => void };
  let queue: Waiting[] = [];
  let running = false;

  async function drain(): Promise<void> {
    running = true;
    while (queue.length > 0) {
      const group = queue.slice(0, maxBatch);
      queue = queue.slice(group.length);
      try {
        const outcomes = await flush(group.map((waiting) => waiting.item));
        group.forEach((waiting, index) => {
          const outcome = outcomes[index];
          if (outcome?.ok) waiting.resolve(outcome.value);
          else waiting.reject(outcome ? outcome.error : new Error("no outcome for a grouped item"));
        });
      } catch (error) {
        for (const waiting of group) waiting.reject(error);
      }
    }
    running = false;
  }

  return (item) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!running && queue.length === 1) {
        running = true;
        setImmediate(() => void drain());
      }
    });
}
