// One durable-sender worker process (the @plant-store/sender outbox + worker, as `serve` runs
// them) over SQLite or PostgreSQL. It waits for a `start` command, so the parent times the drain.
import { countPgStatements } from "../count-pg-statements.js";
import { loadSenderApi } from "../sender-api.js";
import { answerOverIpc, markHandled } from "../server-kit/serve-over-ipc.js";

const target = process.env.BENCH_OUTBOX;
if (!target) throw new Error("BENCH_OUTBOX must be set");
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 50);
const perEndpointConcurrency = Number(process.env.BENCH_PER_ENDPOINT ?? concurrency);
// Unset: the worker's default, which keeps a quarter of the slots from any one owner.
const perOwner =
  process.env.BENCH_PER_OWNER === undefined
    ? {}
    : { perOwnerConcurrency: Number(process.env.BENCH_PER_OWNER) };
// Exploring only: the worker's default (`concurrency`) unless set.
const claimAhead =
  process.env.BENCH_CLAIM_AHEAD === undefined ? {} : { claimAhead: Number(process.env.BENCH_CLAIM_AHEAD) };

const write = (level: string) => (fields: unknown, message?: string) =>
  process.stderr.write(`${level} ${message ?? ""} ${JSON.stringify(fields)}\n`);
const stderrLogger = {
  debug: write("debug"),
  info: write("info"),
  warn: write("warn"),
  error: write("error"),
};

// Client-side statement count (PostgreSQL only), read by the parent with the `statements` command.
const statements = target.startsWith("postgres") ? countPgStatements() : () => 0;
const sender = await loadSenderApi();
const outbox = target.startsWith("postgres")
  ? await sender.createPostgresOutbox(target)
  : sender.createSqliteOutbox(target);
const worker = sender.createWorker({
  outbox,
  concurrency,
  perEndpointConcurrency,
  ...perOwner,
  ...claimAhead,
  client: sender.createDeliveryClient({ maxSockets: concurrency }),
  ssrfGuard: sender.createSsrfGuard({ allowPrivateTargets: true }),
  ...(process.env.BENCH_DEBUG ? { logger: stderrLogger } : {}),
  onAttempt(event: { outcome: string }) {
    if (event.outcome === "delivered") markHandled();
  },
});

answerOverIpc(async (payload) => {
  const command = payload as { type: string };
  if (command.type === "start") {
    worker.start();
    return true;
  }
  if (command.type === "stop") {
    await worker.stop();
    await outbox.close();
    return true;
  }
  if (command.type === "statements") return statements();
  // A message queued in the worker's own process, as `serve`'s POST /plants does (the worker is woken
  // in-process, not by noticing another process's commit).
  if (command.type === "enqueue") {
    await outbox.enqueue({ payload: (command as unknown as { payload: unknown }).payload });
    return true;
  }
  throw new Error(`unknown command ${command.type}`);
});
process.send?.({ type: "ready" });
