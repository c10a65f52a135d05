// pg-boss 10 (12 needs Node 22), the other PostgreSQL queue teams pick, doing the outbox worker's job:
// one job per delivery, a signed got POST to the raw receiver (the same got set-up as the bare got
// loop and the graphile-worker client). It fills its queue on `fill` and works on `start`, so the
// parent times the drain alone.
//
// pg-boss 10 fetches a batch, hands the whole batch to the handler and fetches again only once the
// handler settled and its polling interval (0.5 s at least) has passed since the fetch began, so its
// rate is bounded by workers × batch size / interval: BENCH_PGBOSS_WORKERS `work()` loops with
// BENCH_PGBOSS_BATCH jobs per fetch, polling every 0.5 s. Each handler sends its batch through
// BENCH_CONCURRENCY / workers lanes, so all workers together keep BENCH_CONCURRENCY POSTs in flight,
// as every other drain does (sending a whole batch at once queued thousands of requests in the agent
// and drained slower). A batch is settled all or nothing: one failed POST fails every job of its
// batch, and pg-boss sends them all again.
import { Agent } from "node:http";
import got from "got";
import PgBoss from "pg-boss";
import { countPgStatements } from "../count-pg-statements.js";
import { createPlantSigner } from "../create-plant-signer.js";
import { answerOverIpc, markHandled } from "../server-kit/serve-over-ipc.js";

const connectionString = process.env.BENCH_PG_URL;
const receiverUrl = process.env.BENCH_RECEIVER_URL;
const token = process.env.BENCH_TOKEN;
const secret = process.env.BENCH_SECRET;
if (!connectionString || !receiverUrl || !token || !secret)
  throw new Error("BENCH_PG_URL, BENCH_RECEIVER_URL, BENCH_TOKEN and BENCH_SECRET must be set");
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 50);
const workers = Number(process.env.BENCH_PGBOSS_WORKERS ?? 10);
const batchSize = Number(process.env.BENCH_PGBOSS_BATCH ?? 300);
const lanes = Math.max(1, Math.floor(concurrency / workers));
const QUEUE = "deliver";
const MIN_POLLING_INTERVAL_SECONDS = 0.5;

const statements = countPgStatements();
const client = got.extend({
  agent: { http: new Agent({ keepAlive: true, maxSockets: concurrency }) },
  retry: { limit: 0 },
  throwHttpErrors: false,
});
const sign = createPlantSigner(secret, token);

async function deliver(): Promise<void> {
  const delivery = sign();
  const { statusCode } = await client.post(receiverUrl as string, {
    body: delivery.body,
    headers: delivery.headers,
  });
  if (statusCode < 200 || statusCode >= 300) throw new Error(`receiver answered ${statusCode}`);
  markHandled();
}

// Cron scheduling is not used here; everything else is pg-boss's default.
const boss = new PgBoss({ connectionString, schedule: false });
boss.on("error", (error: Error) => process.stderr.write(`pg-boss: ${error.message}\n`));
await boss.start();
await boss.createQueue(QUEUE);

answerOverIpc(async (payload) => {
  const command = payload as { type: string; count?: number };
  if (command.type === "fill") {
    const total = command.count ?? 0;
    for (let from = 0; from < total; from += 500) {
      const size = Math.min(500, total - from);
      await boss.insert(
        Array.from({ length: size }, (_, i) => ({
          name: QUEUE,
          data: { name: `bench plant ${from + i}`, tag: "bench" },
        })),
      );
    }
    return true;
  }
  if (command.type === "start") {
    for (let i = 0; i < workers; i++) {
      await boss.work(
        QUEUE,
        { batchSize, pollingIntervalSeconds: MIN_POLLING_INTERVAL_SECONDS },
        async (jobs) => {
          let next = 0;
          const lane = async () => {
            while (next < jobs.length) {
              next += 1;
              await deliver();
            }
          };
          await Promise.all(Array.from({ length: Math.min(lanes, jobs.length) }, lane));
        },
      );
    }
    return true;
  }
  if (command.type === "stop") {
    await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    return true;
  }
  if (command.type === "statements") return statements();
  throw new Error(`unknown command ${command.type}`);
});
process.send?.({ type: "ready" });
