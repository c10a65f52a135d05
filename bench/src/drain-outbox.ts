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
}): Promise<DrainResult> {
  const { workers, receiver, expected } = input;
  const before = await receiver.stats(true);
  const workersBefore = await Promise.all(workers.map((w) => w.stats()));
  const started = now();
  await Promise.all(workers.map((w) => w.command({ type: "start" })));
  let after: ProcessStats = before;
  const deadline = Date.now() + input.timeoutMs;
  const timeBox = input.timeBoxMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + input.timeBoxMs;
  while (after.handled - before.handled < expected) {
    if (Date.now() > timeBox) break;
    if (Date.now() > deadline) {
      throw new DrainTimeoutError(
        `only ${after.handled - before.handled} of ${expected} deliveries arrived in ${input.timeoutMs} ms`,
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
    complete: delivered >= expected,
  };
}
