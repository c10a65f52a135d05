import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { BenchCredentials } from "./bench-credentials.js";
import { credentialsEnv } from "./bench-credentials.js";
import { quantile } from "./median.js";
import type { ScenarioContext } from "./scenario.js";
import type { BenchOutbox, SenderApi } from "./sender-api.js";
import { spawnBenchProcess } from "./spawn-bench-process.js";

/** What the store holds besides the operator's one endpoint, made through the sender's own API. */
export type StoreSetup = (outbox: BenchOutbox, receiverUrl: string) => Promise<void>;

export interface OperatorLatencyOptions {
  sender: SenderApi;
  context: ScenarioContext;
  credentials: BenchCredentials;
  setup: StoreSetup;
  /** Plants added, one every `intervalMs`. */
  plants: number;
  intervalMs: number;
  /** Measure the worker process's CPU over this long with nothing due, before the plants; 0: don't. */
  idleMs: number;
}

export interface OperatorLatency {
  /** Median time from a plant's enqueue to its arrival at the operator's endpoint (ms). */
  p50: number;
  /** The worker process's CPU over the idle window, as a share of one core (%). */
  idleCpuPercent: number;
}

/**
 * A store (a SQLite outbox and one worker process at `serve`'s defaults: 16 in flight, 2 per endpoint)
 * with the operator's endpoint at a loopback receiver and whatever `setup` adds (through the bench's own
 * handle on the file, before the worker starts). Plants are queued one every `intervalMs` in the worker's
 * process, as `serve`'s POST /plants does, and the latency of each is from the bench's command to its
 * arrival at the operator's endpoint. Requests to `/hang/...` are held unanswered until the run ends.
 */
export async function runOperatorLatency(options: OperatorLatencyOptions): Promise<OperatorLatency> {
  const { sender, context } = options;
  const queuedAt = new Map<number, number>();
  const latencies: number[] = [];
  const hung: ServerResponse[] = [];
  let arrived: () => void = () => undefined;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.url?.startsWith("/hang/")) {
        hung.push(response);
        return;
      }
      if (request.url === "/operator") {
        const { n } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { n: number };
        const at = queuedAt.get(n);
        if (at !== undefined) latencies.push(performance.now() - at);
        arrived();
      }
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const file = join(context.tempDir(), "store.db");
  const outbox = sender.createSqliteOutbox(file);
  const worker = await spawnBenchProcess("clients/outbox-worker", {
    env: {
      ...credentialsEnv(options.credentials),
      BENCH_OUTBOX: file,
      BENCH_CONCURRENCY: "16",
      BENCH_PER_ENDPOINT: "2",
    },
  });
  try {
    await outbox.addEndpoint({
      url: `${url}/operator`,
      token: "token",
      secrets: [options.credentials.secret],
    });
    await options.setup(outbox, url);
    await worker.command({ type: "start" });
    // Settle (the first poll, the worker's start-up), then the idle window.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    let idleCpuPercent = Number.NaN;
    if (options.idleMs > 0) {
      const before = await worker.stats();
      const startedAt = performance.now();
      await new Promise((resolve) => setTimeout(resolve, options.idleMs));
      const after = await worker.stats();
      idleCpuPercent = ((after.cpuMicros - before.cpuMicros) / 1_000 / (performance.now() - startedAt)) * 100;
    }
    const all = new Promise<void>((resolve) => {
      arrived = () => {
        if (latencies.length >= options.plants) resolve();
      };
    });
    for (let n = 0; n < options.plants; n++) {
      queuedAt.set(n, performance.now());
      await worker.command({ type: "enqueue", payload: { n } });
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs));
    }
    await Promise.race([
      all,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error("operator deliveries did not all arrive")), 120_000),
      ),
    ]);
    return { p50: quantile(latencies, 0.5), idleCpuPercent };
  } finally {
    // The held requests end (the worker records them as failed) so the worker stops at once.
    for (const response of hung.splice(0)) response.destroy();
    server.closeAllConnections();
    await worker.command({ type: "stop" }).catch(() => undefined);
    await worker.stop();
    await outbox.close();
    await new Promise((resolve) => server.close(resolve));
  }
}
