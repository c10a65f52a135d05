import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { type BenchCredentials, createBenchCredentials, credentialsEnv } from "../bench-credentials.js";
import type { BenchResult } from "../bench-result.js";
import { type DrainResult, drainOutbox } from "../drain-outbox.js";
import { median } from "../median.js";
import { ratioRow } from "../ratio-row.js";
import { readPostgresCounters } from "../read-postgres-counters.js";
import { runOutboxDrain } from "../run-outbox-drain.js";
import type { Scenario, ScenarioContext } from "../scenario.js";
import { loadSenderApi, type SenderApi } from "../sender-api.js";
import { type BenchProcess, spawnBenchProcess } from "../spawn-bench-process.js";
import { skippedRows } from "./skipped-rows.js";

const NAME = "sender.drain";
const CONCURRENCY = 50;
const VARIANTS = ["sqlite", "postgres", "graphile-worker"] as const;
type Variant = (typeof VARIANTS)[number];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What one drain cost PostgreSQL, per delivery (or per job). */
interface PostgresCost {
  statements: number;
  commits: number;
  walBytes: number;
  /** The PostgreSQL server's own CPU, µs per delivery. */
  serverCpu: number;
}

const slug: Record<keyof PostgresCost, string> = {
  statements: "statements",
  commits: "commits",
  walBytes: "wal-bytes",
  serverCpu: "server-cpu",
};

interface Sample {
  rate: number;
  cpu: number;
  cost?: PostgresCost;
}

const ROW_NAMES = [
  ...VARIANTS.flatMap((v) => [`${NAME}.${v}.rate`, `${NAME}.${v}.cpu`]),
  `${NAME}.postgres.vs-graphile-worker`,
  ...["statements", "commits", "wal-bytes"].flatMap((c) => [
    `sender.postgres.${c}-per-delivery`,
    `sender.graphile-worker.${c}-per-job`,
  ]),
];

/**
 * Around one drain on PostgreSQL: the cluster's WAL position and the database's commits (read from
 * outside) and the statements the drained processes sent (counted client-side), before and after.
 */
class CostMeter {
  #before?: { walBytes: number; commits: number; serverCpuMicros: number; statements: number };
  #statementsAfter = 0;

  constructor(
    private readonly adminUrl: string,
    private readonly database: string,
  ) {}

  async before(workers: readonly BenchProcess[]): Promise<void> {
    // Idle backends report their commits within a second: the workers' start-up must not count.
    await sleep(1_100);
    const counters = await readPostgresCounters(this.adminUrl, this.database);
    this.#before = { ...counters, statements: await statements(workers) };
  }

  async after(workers: readonly BenchProcess[]): Promise<void> {
    this.#statementsAfter = await statements(workers);
  }

  /** Once the workers have exited (their backends report at exit). */
  async cost(deliveries: number): Promise<PostgresCost> {
    const before = this.#before;
    if (before === undefined) throw new Error("CostMeter.before() was not called");
    await sleep(500);
    const after = await readPostgresCounters(this.adminUrl, this.database);
    return {
      statements: (this.#statementsAfter - before.statements) / deliveries,
      commits: (after.commits - before.commits) / deliveries,
      walBytes: (after.walBytes - before.walBytes) / deliveries,
      serverCpu: (after.serverCpuMicros - before.serverCpuMicros) / deliveries,
    };
  }
}

async function statements(workers: readonly BenchProcess[]): Promise<number> {
  const counts = await Promise.all(workers.map((w) => w.command<number>({ type: "statements" })));
  return counts.reduce((sum, n) => sum + n, 0);
}

interface DrainSetup {
  context: ScenarioContext;
  sender: SenderApi;
  postgres: TestPostgres;
  receiver: BenchProcess;
  credentials: BenchCredentials;
}

async function drainOurs(setup: DrainSetup, variant: "sqlite" | "postgres", count: number): Promise<Sample> {
  const target = variant === "postgres" ? await setup.postgres.createDatabase() : undefined;
  const meter = target === undefined ? undefined : new CostMeter(setup.postgres.url, databaseOf(target));
  const drain = await runOutboxDrain({
    sender: setup.sender,
    context: setup.context,
    receiver: setup.receiver,
    credentials: setup.credentials,
    endpoints: 1,
    plants: count,
    ...(target === undefined ? {} : { target, fillConcurrency: 8 }),
    concurrency: CONCURRENCY,
    timeoutMs: 300_000,
    ...(meter === undefined
      ? {}
      : {
          beforeDrain: (w: readonly BenchProcess[]) => meter.before(w),
          afterDrain: (w: readonly BenchProcess[]) => meter.after(w),
        }),
  });
  return sample(drain, await meter?.cost(drain.delivered));
}

async function drainGraphileWorker(setup: DrainSetup, count: number): Promise<Sample> {
  const target = await setup.postgres.createDatabase();
  const meter = new CostMeter(setup.postgres.url, databaseOf(target));
  const worker = await spawnBenchProcess("clients/graphile-worker", {
    env: {
      ...credentialsEnv(setup.credentials),
      BENCH_PG_URL: target,
      BENCH_RECEIVER_URL: `${setup.receiver.url}/plant/webhook`,
      BENCH_CONCURRENCY: String(CONCURRENCY),
    },
    timeoutMs: 60_000,
  });
  let drain: DrainResult;
  try {
    await worker.command({ type: "fill", count });
    await meter.before([worker]);
    drain = await drainOutbox({
      workers: [worker],
      receiver: setup.receiver,
      expected: count,
      timeoutMs: 300_000,
    });
    await meter.after([worker]);
  } finally {
    await worker.stop();
  }
  return sample(drain, await meter.cost(drain.delivered));
}

function sample(drain: DrainResult, cost: PostgresCost | undefined): Sample {
  return { rate: drain.rate, cpu: drain.cpuMicrosPerDelivery, ...(cost === undefined ? {} : { cost }) };
}

function databaseOf(url: string): string {
  return decodeURIComponent(new URL(url).pathname.slice(1));
}

export const senderDrain: Scenario = {
  name: NAME,
  description:
    "A pre-filled queue drained by one worker process, 50 in flight, each delivery a signed got POST to a raw node:http receiver: our outbox on SQLite and on PostgreSQL, and graphile-worker 0.18 on the same PostgreSQL cluster; PostgreSQL's cost per delivery (statements, commits, WAL bytes)",
  async run(context) {
    let sender: SenderApi;
    try {
      sender = await loadSenderApi();
    } catch (error) {
      return skippedRows(ROW_NAMES, (error as Error).message.split("\n")[0] ?? "");
    }
    let postgres: TestPostgres;
    try {
      postgres = await startPostgres();
    } catch (error) {
      return skippedRows(ROW_NAMES, `PostgreSQL not available: ${(error as Error).message.split("\n")[0]}`);
    }
    const credentials = createBenchCredentials();
    const count = context.quick ? 1_000 : 5_000;
    const samples = new Map<Variant, Sample[]>(VARIANTS.map((v) => [v, []]));
    let receiver: BenchProcess | undefined;
    try {
      receiver = await spawnBenchProcess("servers/raw-http", { env: credentialsEnv(credentials) });
      const setup: DrainSetup = { context, sender, postgres, receiver, credentials };
      const drain = (variant: Variant, n: number) =>
        variant === "graphile-worker" ? drainGraphileWorker(setup, n) : drainOurs(setup, variant, n);
      // Round 0 warms the cluster and the receiver up and is not counted; variants interleave.
      for (let round = 0; round <= context.runs; round++) {
        for (const variant of VARIANTS) {
          const result = await drain(variant, round === 0 ? Math.min(count, 500) : count);
          if (round === 0) continue;
          samples.get(variant)?.push(result);
          const cost =
            result.cost === undefined
              ? ""
              : `, ${result.cost.statements.toFixed(2)} statements, ${result.cost.commits.toFixed(2)} commits, ${Math.round(result.cost.walBytes)} WAL bytes, ${Math.round(result.cost.serverCpu)} µs server CPU per delivery`;
          context.log(
            `${NAME}: run ${round}/${context.runs} ${variant} ${Math.round(result.rate)} deliveries/s, ${Math.round(result.cpu)} µs CPU per delivery${cost}`,
          );
        }
      }
    } finally {
      await receiver?.stop();
      await postgres.stop();
    }
    const of = (variant: Variant, pick: (s: Sample) => number | undefined) =>
      median((samples.get(variant) ?? []).flatMap((s) => pick(s) ?? []));
    const row = (variant: Variant, figure: "rate" | "cpu") => ({
      name: `${NAME}.${variant}.${figure}`,
      value: of(variant, (s) => s[figure]),
    });
    const cost = (variant: "postgres" | "graphile-worker", figure: keyof PostgresCost) => ({
      name:
        variant === "postgres"
          ? `sender.postgres.${slug[figure]}-per-delivery`
          : `sender.graphile-worker.${slug[figure]}-per-job`,
      value: of(variant, (s) => s.cost?.[figure]),
    });
    const size = `${count} deliveries, 1 worker process × ${CONCURRENCY} in flight`;
    const results: BenchResult[] = [
      ratioRow(
        row("sqlite", "rate").name,
        row("sqlite", "rate").value,
        "deliveries/s",
        row("sqlite", "rate"),
        size,
      ),
      ratioRow(row("sqlite", "cpu").name, row("sqlite", "cpu").value, "µs/delivery", row("sqlite", "cpu")),
      ratioRow(
        row("postgres", "rate").name,
        row("postgres", "rate").value,
        "deliveries/s",
        row("sqlite", "rate"),
        "goal >= 0.7",
      ),
      ratioRow(
        row("postgres", "cpu").name,
        row("postgres", "cpu").value,
        "µs/delivery",
        row("sqlite", "cpu"),
      ),
      ratioRow(
        row("graphile-worker", "rate").name,
        row("graphile-worker", "rate").value,
        "jobs/s",
        row("sqlite", "rate"),
        "graphile-worker 0.18 defaults, concurrency 50, same cluster and receiver",
      ),
      ratioRow(
        row("graphile-worker", "cpu").name,
        row("graphile-worker", "cpu").value,
        "µs/job",
        row("sqlite", "cpu"),
      ),
      ratioRow(
        `${NAME}.postgres.vs-graphile-worker`,
        row("postgres", "rate").value,
        "deliveries/s",
        row("graphile-worker", "rate"),
        "goal >= 1.2",
      ),
    ];
    const notes: Record<keyof PostgresCost, string> = {
      statements: "client-side count of pg queries sent by the worker process during the drain",
      commits: "pg_stat_database.xact_commit of the drained database; goal <= 0.1",
      walBytes: "pg_current_wal_lsn() before/after (whole cluster); goal: half of today's",
      serverCpu: "the PostgreSQL server's CPU (postmaster and backends, /proc) during the drain",
    };
    for (const figure of ["statements", "commits", "walBytes", "serverCpu"] as const) {
      const unit = { statements: "statements", commits: "commits", walBytes: "bytes", serverCpu: "µs CPU" }[
        figure
      ];
      const theirs = cost("graphile-worker", figure);
      const ours = cost("postgres", figure);
      results.push(ratioRow(ours.name, ours.value, `${unit}/delivery`, theirs, notes[figure]));
      results.push(ratioRow(theirs.name, theirs.value, `${unit}/job`, theirs));
    }
    return results;
  },
};
