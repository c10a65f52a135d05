/**
 * graphile-worker 0.18 at its best for throughput, the settings its performance page gives: a local
 * queue of 500 jobs, completions and failures batched with no delay. Shared by every scenario that
 * runs it "at its best", so they all measure the same thing.
 */
export const GRAPHILE_BEST_PRESET = {
  worker: { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 },
};
