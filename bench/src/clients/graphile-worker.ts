// graphile-worker 0.18, the well-known PostgreSQL queue, doing the outbox worker's job: one task
// per delivery, a signed got POST to the raw receiver (the same got set-up as the bare got loop).
// It fills its queue on `fill` and runs on `start`, so the parent times the drain alone.
// BENCH_GRAPHILE_BEST=1 runs it at the settings its performance page recommends for throughput
// (a local queue of 500 jobs, completions and failures batched with no delay); otherwise its defaults.
import { Agent } from "node:http";
import got from "got";
import { Logger, makeWorkerUtils, type Runner, run, runMigrations } from "graphile-worker";
import { countPgStatements } from "../count-pg-statements.js";
import { createPlantSigner } from "../create-plant-signer.js";
import { GRAPHILE_BEST_PRESET } from "../graphile-best-preset.js";
import { answerOverIpc, markHandled } from "../server-kit/serve-over-ipc.js";

const connectionString = process.env.BENCH_PG_URL;
const receiverUrl = process.env.BENCH_RECEIVER_URL;
const token = process.env.BENCH_TOKEN;
const secret = process.env.BENCH_SECRET;
if (!connectionString || !receiverUrl || !token || !secret)
  throw new Error("BENCH_PG_URL, BENCH_RECEIVER_URL, BENCH_TOKEN and BENCH_SECRET must be set");
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 50);
const best = process.env.BENCH_GRAPHILE_BEST === "1";

const statements = countPgStatements();
// Quiet: graphile-worker logs every job at info level by default.
const logger = new Logger(() => (level, message) => {
  if (level === "error") process.stderr.write(`graphile-worker: ${message}\n`);
});
const client = got.extend({
  agent: { http: new Agent({ keepAlive: true, maxSockets: concurrency }) },
  retry: { limit: 0 },
  throwHttpErrors: false,
});
const sign = createPlantSigner(secret, token);

const taskList = {
  async deliver() {
    const delivery = sign();
    const { statusCode } = await client.post(receiverUrl, { body: delivery.body, headers: delivery.headers });
    // A failed job is retried by graphile-worker on its own schedule, as ours retries on its own.
    if (statusCode < 200 || statusCode >= 300) throw new Error(`receiver answered ${statusCode}`);
    markHandled();
  },
};

await runMigrations({ connectionString, logger });
let runner: Runner | undefined;

answerOverIpc(async (payload) => {
  const command = payload as { type: string; count?: number };
  if (command.type === "fill") {
    const utils = await makeWorkerUtils({ connectionString, logger });
    try {
      const total = command.count ?? 0;
      for (let from = 0; from < total; from += 500) {
        const size = Math.min(500, total - from);
        await utils.addJobs(
          Array.from({ length: size }, (_, i) => ({
            identifier: "deliver",
            payload: { name: `bench plant ${from + i}`, tag: "bench" },
          })),
        );
      }
    } finally {
      await utils.release();
    }
    return true;
  }
  if (command.type === "start") {
    runner = await run({
      connectionString,
      concurrency,
      noHandleSignals: true,
      logger,
      taskList,
      ...(best ? { preset: GRAPHILE_BEST_PRESET } : {}),
    });
    return true;
  }
  if (command.type === "stop") {
    await runner?.stop();
    return true;
  }
  if (command.type === "statements") return statements();
  throw new Error(`unknown command ${command.type}`);
});
process.send?.({ type: "ready" });
