// sender.drain.one-process: the queue, a raw node:http receiver and the timing in ONE process, so
// the CPU a delivery costs (process.cpuUsage, the receiver's share included, the same for every
// variant) is read where it is spent. One `drain` command per process: fill, warm up, time.
// Variants: our outbox (postgres, sqlite), graphile-worker at its best (the preset of
// clients/graphile-worker with BENCH_GRAPHILE_BEST=1), the bare got loop (no queue: 50 lanes, each
// sending its next POST when its last is answered) and the same loop in bursts (50 POSTs, then the next 50
// once all are answered), which shows what the sending pattern alone costs.
import { writeFileSync } from "node:fs";
import { Agent, createServer } from "node:http";
import { Session } from "node:inspector";
import type { AddressInfo } from "node:net";
import got from "got";
import { Logger, makeWorkerUtils, type Runner, run, runMigrations } from "graphile-worker";
import { createPlantSigner } from "../create-plant-signer.js";
import { enqueuePlant } from "../enqueue-plant.js";
import { GRAPHILE_BEST_PRESET } from "../graphile-best-preset.js";
import { loadSenderApi } from "../sender-api.js";
import { answerOverIpc } from "../server-kit/serve-over-ipc.js";

export type OneProcessVariant = "got-loop" | "got-bursts" | "postgres" | "sqlite" | "graphile-worker-best";

export interface OneProcessDrainCommand {
  type: "drain";
  variant: OneProcessVariant;
  /** PostgreSQL URL (postgres, graphile-worker-best) or SQLite file (sqlite). */
  target?: string;
  count: number;
  warmup: number;
  concurrency: number;
  token: string;
  secret: string;
}

export interface OneProcessDrainResult {
  /** Deliveries a second from the end of the warm-up to the last measured delivery received. */
  rate: number;
  /** The whole process's CPU (queue, HTTP client, receiver) per measured delivery, µs. */
  cpuMicros: number;
  /** Of which in the kernel (system time): sockets, and SQLite's file writes. */
  systemMicros: number;
  delivered: number;
  /** Our outbox only: the worker's calls to it (each one transaction: records and claims) per measured delivery. */
  roundTrips?: number;
}

/** The receiver: reads the body and JSON.parses it (servers/raw-http), counting each delivery. */
async function startReceiver(onDelivery: () => void): Promise<{ url: string; close: () => void }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      try {
        JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        res.writeHead(400).end();
        return;
      }
      onDelivery();
      res.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/plant/webhook`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>;
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * The profile less its first samples spent inside `Profiler.start` itself (the inspector's native
 * `dispatch`, 0.1-0.3 s on a loaded machine): not the drain's work, and outside its CPU reading.
 */
function withoutProfilerStart(profile: CpuProfile): CpuProfile {
  const dispatch = new Set(
    profile.nodes
      .filter((node) => node.callFrame.functionName === "dispatch" && node.callFrame.url === "")
      .map((node) => node.id),
  );
  let first = 0;
  while (first < profile.samples.length && dispatch.has(profile.samples[first] as number)) first += 1;
  const skipped = profile.timeDeltas.slice(0, first).reduce((sum, delta) => sum + delta, 0);
  return {
    ...profile,
    startTime: profile.startTime + skipped,
    samples: profile.samples.slice(first),
    timeDeltas: profile.timeDeltas.slice(first),
  };
}

/**
 * BENCH_PROFILE_FILE: a CPU profile of the measured part alone (the warm-up's end to the last delivery;
 * not the fill, not the start-up), written there, which `--cpu-prof` cannot do.
 */
function createWindowProfiler(file: string | undefined) {
  if (file === undefined) return { start() {}, stop: async () => {} };
  const session = new Session();
  session.connect();
  const post = (method: string) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, (error, result) => (error ? reject(error) : resolve(result))),
    );
  void post("Profiler.enable");
  return {
    start() {
      void post("Profiler.start");
    },
    async stop() {
      const { profile } = (await post("Profiler.stop")) as { profile: CpuProfile };
      writeFileSync(file, JSON.stringify(withoutProfilerStart(profile)));
      session.disconnect();
    },
  };
}

/** Marks the warm-up's end and the measured end as the receiver counts deliveries. */
function createMeter(warmup: number, count: number) {
  const profiler = createWindowProfiler(process.env.BENCH_PROFILE_FILE);
  let received = 0;
  let startedAt = 0;
  let cpuStart: NodeJS.CpuUsage | undefined;
  let finish: (result: OneProcessDrainResult) => void = () => {};
  const done = new Promise<OneProcessDrainResult>((resolve) => {
    finish = resolve;
  });
  let onStart = () => {};
  const mark = () => {
    onStart();
    profiler.start();
    cpuStart = process.cpuUsage();
    startedAt = performance.now();
  };
  if (warmup === 0) mark();
  return {
    done,
    /** Called when the measured part starts. */
    onStart(callback: () => void) {
      onStart = callback;
    },
    onDelivery() {
      received += 1;
      if (received === warmup) mark();
      if (received === warmup + count) {
        const cpu = process.cpuUsage(cpuStart);
        const result = {
          rate: (count / (performance.now() - startedAt)) * 1000,
          cpuMicros: (cpu.user + cpu.system) / count,
          systemMicros: cpu.system / count,
          delivered: count,
        };
        void profiler.stop().then(() => finish(result));
      }
    },
  };
}

const quietLogger = new Logger(() => (level, message) => {
  if (level === "error") process.stderr.write(`graphile-worker: ${message}\n`);
});

async function drain(command: OneProcessDrainCommand): Promise<OneProcessDrainResult> {
  const { variant, count, warmup, concurrency } = command;
  const meter = createMeter(warmup, count);
  const receiver = await startReceiver(meter.onDelivery);
  // One signed got POST to the receiver, as the got loops and graphile-worker's task send it.
  const signedPoster = () => {
    const client = got.extend({
      agent: { http: new Agent({ keepAlive: true, maxSockets: concurrency }) },
      retry: { limit: 0 },
      throwHttpErrors: false,
    });
    const sign = createPlantSigner(command.secret, command.token);
    return async () => {
      const delivery = sign();
      const { statusCode } = await client.post(receiver.url, {
        body: delivery.body,
        headers: delivery.headers,
      });
      if (statusCode < 200 || statusCode >= 300) throw new Error(`receiver answered ${statusCode}`);
    };
  };
  try {
    if (variant === "got-loop") {
      const post = signedPoster();
      let next = 0;
      const lane = async () => {
        while (next < warmup + count) {
          next += 1;
          await post();
        }
      };
      await Promise.all(Array.from({ length: concurrency }, lane));
      return await meter.done;
    }
    if (variant === "got-bursts") {
      const post = signedPoster();
      for (let sent = 0; sent < warmup + count; ) {
        const burst = Math.min(concurrency, warmup + count - sent);
        sent += burst;
        await Promise.all(Array.from({ length: burst }, post));
      }
      return await meter.done;
    }
    const target = command.target;
    if (target === undefined) throw new Error(`${variant} needs a target`);
    if (variant === "graphile-worker-best") {
      const post = signedPoster();
      await runMigrations({ connectionString: target, logger: quietLogger });
      const utils = await makeWorkerUtils({ connectionString: target, logger: quietLogger });
      try {
        const total = warmup + count;
        for (let from = 0; from < total; from += 500) {
          await utils.addJobs(
            Array.from({ length: Math.min(500, total - from) }, (_, i) => ({
              identifier: "deliver",
              payload: { name: `bench plant ${from + i}`, tag: "bench" },
            })),
          );
        }
      } finally {
        await utils.release();
      }
      const runner: Runner = await run({
        connectionString: target,
        concurrency,
        noHandleSignals: true,
        logger: quietLogger,
        taskList: {
          async deliver() {
            await post();
          },
        },
        preset: GRAPHILE_BEST_PRESET,
      });
      try {
        return await meter.done;
      } finally {
        await runner.stop();
      }
    }
    const sender = await loadSenderApi();
    const outbox =
      variant === "postgres" ? await sender.createPostgresOutbox(target) : sender.createSqliteOutbox(target);
    try {
      await outbox.addEndpoint({ url: receiver.url, token: command.token, secrets: [command.secret] });
      let next = 0;
      const lane = async () => {
        while (next < warmup + count) await enqueuePlant(outbox, next++);
      };
      await Promise.all(Array.from({ length: variant === "postgres" ? 8 : 1 }, lane));
      // Counted on the way through: each call is one transaction (records, and the claim riding with them).
      let calls = 0;
      let callsAtStart = 0;
      meter.onStart(() => {
        callsAtStart = calls;
      });
      const counted: typeof outbox = Object.create(outbox);
      counted.claimDue = (request) => {
        calls += 1;
        return outbox.claimDue(request);
      };
      counted.recordAttempts = (reports, options) => {
        calls += 1;
        return outbox.recordAttempts(reports, options);
      };
      const worker = sender.createWorker({
        outbox: counted,
        concurrency,
        // One endpoint and one owner here: all 50 slots may go to them, as in sender.drain and as the
        // other variants have 50 in flight (by default an owner leaves 12 of 50 to other owners).
        perEndpointConcurrency: concurrency,
        perOwnerConcurrency: concurrency,
        client: sender.createDeliveryClient({ maxSockets: concurrency }),
        ssrfGuard: sender.createSsrfGuard({ allowPrivateTargets: true }),
      });
      worker.start();
      try {
        const result = await meter.done;
        return { ...result, roundTrips: (calls - callsAtStart) / count };
      } finally {
        await worker.stop();
      }
    } finally {
      await outbox.close();
    }
  } finally {
    receiver.close();
  }
}

answerOverIpc(async (payload) => {
  const command = payload as OneProcessDrainCommand;
  if (command.type === "drain") return drain(command);
  throw new Error(`unknown command ${(command as { type: string }).type}`);
});
process.send?.({ type: "ready" });
