import { join } from "node:path";
import type { BenchCredentials } from "./bench-credentials.js";
import { type DrainResult, drainOutbox } from "./drain-outbox.js";
import { populateOutbox } from "./populate-outbox.js";
import type { ScenarioContext } from "./scenario.js";
import type { SenderApi } from "./sender-api.js";
import { type BenchProcess, spawnBenchProcess } from "./spawn-bench-process.js";

export interface OutboxDrainInput {
  sender: SenderApi;
  context: ScenarioContext;
  /** A raw receiver process (servers/raw-http) that counts deliveries. */
  receiver: BenchProcess;
  credentials: BenchCredentials;
  endpoints: number;
  plants: number;
  /** SQLite file (default: a new one in a temp dir) or a PostgreSQL URL. */
  target?: string;
  /** Plants added at once while filling (PostgreSQL: one pool connection each). Default 1. */
  fillConcurrency?: number;
  /** Every plant keyed, round robin over this many ordering keys. */
  orderingKeys?: number;
  /** Each endpoint's rate limit (deliveries a second). */
  rateLimit?: number;
  /** Worker processes sharing the outbox. Default 1. */
  workers?: number;
  concurrency: number;
  perEndpointConcurrency?: number;
  /** Attempts of one owner in flight (the worker's `perOwnerConcurrency`); default the worker's own. */
  perOwnerConcurrency?: number;
  timeoutMs: number;
  timeBoxMs?: number;
  /** Node flags for the worker processes (e.g. `--cpu-prof`). */
  execArgv?: string[];
  /** Called with the worker pids once they have exited. */
  onExited?: (pids: number[]) => void;
  /** Plants drained before measuring starts (see `drainOutbox`'s `warmup`); default 0. */
  warmupPlants?: number;
  /** Called once the workers are ready, before they start (and warm up): e.g. to read counters. */
  beforeDrain?: (workers: readonly BenchProcess[]) => Promise<void>;
  /** Called once the drain is over and the workers were told to stop, while they still run. */
  afterDrain?: (workers: readonly BenchProcess[]) => Promise<void>;
}

/** A fresh outbox filled with `plants × endpoints` deliveries, drained by worker processes. */
export async function runOutboxDrain(input: OutboxDrainInput): Promise<DrainResult & { deliveries: number }> {
  const target = input.target ?? join(input.context.tempDir(), "outbox.db");
  const receiverUrl = `${input.receiver.url}/plant/webhook`;
  await populateOutbox({
    sender: input.sender,
    target,
    receiverUrl,
    credentials: input.credentials,
    endpoints: input.endpoints,
    plants: input.plants + (input.warmupPlants ?? 0),
    ...(input.fillConcurrency === undefined ? {} : { concurrency: input.fillConcurrency }),
    ...(input.orderingKeys === undefined ? {} : { orderingKeys: input.orderingKeys }),
    ...(input.rateLimit === undefined ? {} : { rateLimit: input.rateLimit }),
  });
  const workers: BenchProcess[] = [];
  try {
    for (let i = 0; i < (input.workers ?? 1); i++) {
      workers.push(
        await spawnBenchProcess("clients/outbox-worker", {
          env: {
            BENCH_OUTBOX: target,
            BENCH_CONCURRENCY: String(input.concurrency),
            BENCH_PER_ENDPOINT: String(input.perEndpointConcurrency ?? input.concurrency),
            ...(input.perOwnerConcurrency === undefined
              ? {}
              : { BENCH_PER_OWNER: String(input.perOwnerConcurrency) }),
          },
          ...(input.execArgv === undefined ? {} : { execArgv: input.execArgv }),
        }),
      );
    }
    const deliveries = input.endpoints * input.plants;
    const result = await drainOutbox({
      workers,
      receiver: input.receiver,
      expected: deliveries,
      timeoutMs: input.timeoutMs,
      warmup: input.endpoints * (input.warmupPlants ?? 0),
      beforeStart: async () => input.beforeDrain?.(workers),
      ...(input.timeBoxMs === undefined ? {} : { timeBoxMs: input.timeBoxMs }),
    });
    await input.afterDrain?.(workers);
    return { ...result, deliveries };
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    input.onExited?.(workers.flatMap((w) => (w.child.pid === undefined ? [] : [w.child.pid])));
  }
}
