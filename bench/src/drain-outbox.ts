import type { ProcessStats } from "./server-kit/bench-message.js";
import type { BenchProcess } from "./spawn-bench-process.js";

export class DrainTimeoutError extends Error {
  readonly code = "ERR_DRAIN_TIMEOUT";
  override readonly name = "DrainTimeoutError";
}

export interface DrainResult {
  /** Deliveries per second, from the `start` command to the last delivery the receiver saw. */
  rate: number;
  /** Worker CPU time (all worker processes) per delivery. */
  cpuMicrosPerDelivery: number;
  /** Highest peak RSS among the worker processes (bytes). */
  peakRss: number;
  delivered: number;
  /** Deliveries since `beforeStart`, the warm-up's included: what a meter read there divides by. */
  deliveredSinceStart: number;
  /** False when `timeBoxMs` ended the drain first: the rate is then over the part delivered. */
  complete: boolean;
}

const now = () => performance.timeOrigin + performance.now();

/**
 * Starts already-spawned outbox workers on a pre-filled outbox and waits until the receiver has
 * counted `expected` more deliveries; then stops the workers.
 */
export async function drainOutbox(input: {
  workers: readonly BenchProcess[];
  receiver: BenchProcess;
  expected: number;
  timeoutMs: number;
  /** Stop measuring after this long and report the rate so far instead of failing. */
  timeBoxMs?: number;
  /**
   * Deliveries made before measuring starts (the outbox holds them beyond `expected`): a fresh worker
   * process compiles its hot paths during its first few hundred, which a warmed loop beside it does not
   * pay. Default 0.
   */
  warmup?: number;
  /**
   * Called before the workers are told to start (before the warm-up), e.g. to read the database's
   * counters: a reading that takes time (waiting for idle backends to report) must not overlap the
   * drain, or the costs it meters would miss the drain's first part.
   */
  beforeStart?: () => Promise<void>;
}): Promise<DrainResult> {
  const { workers, receiver, expected } = input;
  const warmup = input.warmup ?? 0;
  const deadline = Date.now() + input.timeoutMs;
  await input.beforeStart?.();
  let before = await receiver.stats(true);
  const initial = before.handled;
  // Counted from the receiver's total: the warm-up may overshoot by what was in flight when it ended.
  const end = before.handled + warmup + expected;
  let workersBefore = await Promise.all(workers.map((w) => w.stats()));
  let started = now();
  await Promise.all(workers.map((w) => w.command({ type: "start" })));
  if (warmup > 0) {
    const warm = before.handled + warmup;
    while (before.handled < warm) {
      if (Date.now() > deadline)
        throw new DrainTimeoutError(
          `only ${warmup - (warm - before.handled)} of ${warmup} warm-up deliveries arrived`,
        );
      await new Promise((resolve) => setTimeout(resolve, 5));
      before = await receiver.stats();
    }
    workersBefore = await Promise.all(workers.map((w) => w.stats()));
    started = now();
  }
  let after: ProcessStats = before;
  const timeBox = input.timeBoxMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + input.timeBoxMs;
  while (after.handled < end) {
    if (Date.now() > timeBox) break;
    if (Date.now() > deadline) {
      throw new DrainTimeoutError(
        `only ${after.handled - before.handled} of ${end - before.handled} deliveries arrived in ${input.timeoutMs} ms`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    after = await receiver.stats();
  }
  const workersAfter = await Promise.all(workers.map((w) => w.stats()));
  await Promise.all(workers.map((w) => w.command({ type: "stop" })));
  const delivered = after.handled - before.handled;
  const cpu = workersAfter.reduce((sum, s, i) => sum + s.cpuMicros - (workersBefore[i]?.cpuMicros ?? 0), 0);
  return {
    rate: delivered / ((after.lastHandledAt - started) / 1000),
    cpuMicrosPerDelivery: cpu / delivered,
    peakRss: Math.max(...workersAfter.map((s) => s.peakRss)),
    delivered,
    deliveredSinceStart: after.handled - initial,
    complete: after.handled >= end,
  };
}
