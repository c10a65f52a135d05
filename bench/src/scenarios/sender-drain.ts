import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { type BenchCredentials, createBenchCredentials, credentialsEnv } from "../bench-credentials.js";
import type { BenchResult } from "../bench-result.js";
import type { HttpLoopCommand, HttpLoopResult } from "../clients/http-loop.js";
import { type DrainResult, drainOutbox } from "../drain-outbox.js";
import { formatSpread } from "../format-spread.js";
import { median } from "../median.js";
import { ratioRow } from "../ratio-row.js";
import { readPostgresCounters } from "../read-postgres-counters.js";
import { profileExecArgv, reportCpuProfile } from "../report-cpu-profile.js";
import { runOutboxDrain } from "../run-outbox-drain.js";
import type { Scenario, ScenarioContext } from "../scenario.js";
import { loadSenderApi, type SenderApi } from "../sender-api.js";
import { type BenchProcess, spawnBenchProcess } from "../spawn-bench-process.js";
import { skippedRows } from "./skipped-rows.js";

const NAME = "sender.drain";
const CONCURRENCY = 50;
const VARIANTS = [
  "sqlite",
  "postgres",
  "graphile-worker",
  "graphile-worker-best",
  "pg-boss",
  "got-loop",
] as const;
type Variant = (typeof VARIANTS)[number];
type Anchor = Exclude<Variant, "sqlite" | "postgres" | "got-loop">;

// pg-boss 10 at the settings that drained fastest here (explored with BENCH_PGBOSS_WORKERS and
// BENCH_PGBOSS_BATCH, bench/README.md): its rate is bounded by workers × batch / polling interval.
const PGBOSS_WORKERS = Number(process.env.BENCH_PGBOSS_WORKERS ?? 10);
const PGBOSS_BATCH = Number(process.env.BENCH_PGBOSS_BATCH ?? 300);

/** The other queues, each a client process of its own doing the same signed got POST per job. */
const ANCHORS: Record<Anchor, { client: string; env: Record<string, string>; note: string }> = {
  "graphile-worker": {
    client: "clients/graphile-worker",
    env: {},
    note: "graphile-worker 0.18 defaults, concurrency 50, same cluster and receiver",
  },
  "graphile-worker-best": {
    client: "clients/graphile-worker",
    env: { BENCH_GRAPHILE_BEST: "1" },
    note: "graphile-worker 0.18 at its best: localQueue size 500, completeJobBatchDelay 0, failJobBatchDelay 0, quiet logger, concurrency 50",
  },
  "pg-boss": {
    client: "clients/pg-boss",
    env: { BENCH_PGBOSS_WORKERS: String(PGBOSS_WORKERS), BENCH_PGBOSS_BATCH: String(PGBOSS_BATCH) },
    note: `pg-boss 10 at its fastest here: ${PGBOSS_WORKERS} workers × batches of ${PGBOSS_BATCH}, polling every 0.5 s (its minimum), 50 sockets; a batch is settled all or nothing (one failed POST fails and re-sends the whole batch)`,
  },
};

/** Variants to run (all by default): BENCH_DRAIN_VARIANTS=pg-boss,postgres, e.g. to explore one anchor's settings. */
function selectedVariants(): readonly Variant[] {
  const wanted = process.env.BENCH_DRAIN_VARIANTS?.split(",").map((v) => v.trim());
  return wanted === undefined ? VARIANTS : VARIANTS.filter((v) => wanted.includes(v));
}
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

const VS_ROWS = [
  ["postgres", "graphile-worker"],
  ["postgres", "graphile-worker-best"],
  ["postgres", "pg-boss"],
  ["sqlite", "graphile-worker-best"],
  ["sqlite", "pg-boss"],
  // The ceiling: every queue here makes the same got POST per job, so none drains faster than the bare
  // got loop doing only that, in a process of its own, warmed the same way.
  ["postgres", "got-loop"],
  ["graphile-worker-best", "got-loop"],
  ["pg-boss", "got-loop"],
] as const;

const ROW_NAMES = [
  ...VARIANTS.flatMap((v) => [`${NAME}.${v}.rate`, `${NAME}.${v}.cpu`]),
  ...VS_ROWS.map(([ours, theirs]) => `${NAME}.${ours}.vs-${theirs}`),
  ...["statements", "commits", "wal-bytes", "server-cpu"].flatMap((c) => [
    `sender.postgres.${c}-per-delivery`,
    ...(["graphile-worker", "graphile-worker-best", "pg-boss"] as const).map(
      (a) => `sender.${a}.${c}-per-job`,
    ),
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
  /** Deliveries each drain makes before measuring starts (its process's warm-up). */
  warmup: number;
}

async function drainOurs(
  setup: DrainSetup,
  variant: "sqlite" | "postgres",
  count: number,
  profiled: boolean,
): Promise<Sample> {
  const target = variant === "postgres" ? await setup.postgres.createDatabase() : undefined;
  const meter = target === undefined ? undefined : new CostMeter(setup.postgres.url, databaseOf(target));
  const drain = await runOutboxDrain({
    sender: setup.sender,
    context: setup.context,
    receiver: setup.receiver,
    credentials: setup.credentials,
    endpoints: 1,
    plants: count,
    warmupPlants: setup.warmup,
    ...(target === undefined ? {} : { target, fillConcurrency: 8 }),
    concurrency: CONCURRENCY,
    // One owner (the operator) here: all 50 slots may go to it, as the other variants have 50 in flight
    // (the default keeps 12 of them for other owners, who have none here).
    perOwnerConcurrency: CONCURRENCY,
    timeoutMs: 300_000,
    // With --profile, the first measured drain of each variant runs under --cpu-prof.
    ...(profiled
      ? {
          execArgv: profileExecArgv(setup.context),
          onExited: (pids: number[]) => reportCpuProfile(setup.context, `drain-${variant}`, pids[0]),
        }
      : {}),
    ...(meter === undefined
      ? {}
      : {
          beforeDrain: (w: readonly BenchProcess[]) => meter.before(w),
          afterDrain: (w: readonly BenchProcess[]) => meter.after(w),
        }),
  });
  return sample(drain, await meter?.cost(drain.deliveredSinceStart));
}

interface AnchorSpec {
  label: string;
  client: string;
  env: Record<string, string>;
}

async function drainAnchor(
  setup: DrainSetup,
  anchor: AnchorSpec,
  count: number,
  profiled: boolean,
): Promise<Sample> {
  const target = await setup.postgres.createDatabase();
  const meter = new CostMeter(setup.postgres.url, databaseOf(target));
  const worker = await spawnBenchProcess(anchor.client, {
    env: {
      ...credentialsEnv(setup.credentials),
      ...anchor.env,
      BENCH_PG_URL: target,
      BENCH_RECEIVER_URL: `${setup.receiver.url}/plant/webhook`,
      BENCH_CONCURRENCY: String(CONCURRENCY),
    },
    ...(profiled ? { execArgv: profileExecArgv(setup.context) } : {}),
    timeoutMs: 60_000,
  });
  let drain: DrainResult;
  try {
    await worker.command({ type: "fill", count: count + setup.warmup });
    drain = await drainOutbox({
      workers: [worker],
      receiver: setup.receiver,
      expected: count,
      timeoutMs: 300_000,
      warmup: setup.warmup,
      beforeStart: () => meter.before([worker]),
    });
    await meter.after([worker]);
  } finally {
    await worker.stop();
    if (profiled) reportCpuProfile(setup.context, `drain-${anchor.label}`, worker.child.pid);
  }
  return sample(drain, await meter.cost(drain.deliveredSinceStart));
}

/** The bare got loop (`clients/http-loop`), no queue: a fresh process, warmed, then timed. */
async function drainGotLoop(setup: DrainSetup, count: number): Promise<Sample> {
  const loop = await spawnBenchProcess("clients/http-loop", { env: { BENCH_CLIENT: "got" } });
  try {
    const command = (n: number): HttpLoopCommand => ({
      url: `${setup.receiver.url}/plant/webhook`,
      count: n,
      concurrency: CONCURRENCY,
      token: setup.credentials.token,
      secret: setup.credentials.secret,
    });
    if (setup.warmup > 0) await loop.command(command(setup.warmup));
    const result = await loop.command<HttpLoopResult>(command(count));
    if (result.failed > 0) throw new Error(`got loop: ${result.failed} of ${count} POSTs failed`);
    return { rate: (result.ok / result.elapsedMs) * 1000, cpu: result.cpuMicros / result.ok };
  } finally {
    await loop.stop();
  }
}

/**
 * BENCH_PGBOSS_SWEEP="5x100,10x300": pg-boss alone at each `workers x batch`, interleaved round by round
 * (how the settings of the `pg-boss` row were chosen); one rate row per setting.
 */
async function sweepPgBoss(setup: DrainSetup, list: string, count: number): Promise<BenchResult[]> {
  const settings = list.split(",").map((item) => {
    const [workers, batch] = item.trim().split("x").map(Number);
    if (!Number.isInteger(workers) || !Number.isInteger(batch))
      throw new Error(`BENCH_PGBOSS_SWEEP: ${item}?`);
    return { label: `pg-boss.sweep.${workers}x${batch}`, workers: String(workers), batch: String(batch) };
  });
  const rates = new Map<string, number[]>(settings.map((s) => [s.label, []]));
  for (let round = 0; round <= setup.context.runs; round++) {
    for (const setting of settings) {
      const anchor = {
        label: setting.label,
        client: "clients/pg-boss",
        env: { BENCH_PGBOSS_WORKERS: setting.workers, BENCH_PGBOSS_BATCH: setting.batch },
      };
      const result = await drainAnchor(setup, anchor, round === 0 ? Math.min(count, 500) : count, false);
      if (round === 0) continue;
      rates.get(setting.label)?.push(result.rate);
      setup.context.log(
        `${NAME}: run ${round}/${setup.context.runs} ${setting.label} ${Math.round(result.rate)} jobs/s`,
      );
    }
  }
  const first = {
    name: `${NAME}.${settings[0]?.label}.rate`,
    value: median(rates.get(settings[0]?.label ?? "") ?? []),
  };
  return settings.map((setting) => {
    const values = rates.get(setting.label) ?? [];
    return ratioRow(
      `${NAME}.${setting.label}.rate`,
      median(values),
      "jobs/s",
      first,
      `${count} jobs; ${formatSpread(values, 0)}`,
    );
  });
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
    "A pre-filled queue drained by one worker process, 50 in flight, each delivery a signed got POST to a raw node:http receiver: our outbox on SQLite and on PostgreSQL, and on the same PostgreSQL cluster graphile-worker 0.18 (defaults and at its best) and pg-boss 10 (at its fastest); PostgreSQL's cost per delivery (statements, commits, WAL bytes, server CPU)",
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
    const count = Number(process.env.BENCH_DRAIN_COUNT ?? (context.quick ? 1_000 : 5_000));
    // As the got loop beside it is warmed before it is timed, each drain's process first delivers this
    // many unmeasured: a fresh process compiles its hot paths first (BENCH_DRAIN_WARMUP=0: none).
    const warmup = Number(process.env.BENCH_DRAIN_WARMUP ?? (context.quick ? 500 : 1_000));
    const variants = selectedVariants();
    const samples = new Map<Variant, Sample[]>(VARIANTS.map((v) => [v, []]));
    let receiver: BenchProcess | undefined;
    try {
      receiver = await spawnBenchProcess("servers/raw-http", { env: credentialsEnv(credentials) });
      const setup: DrainSetup = { context, sender, postgres, receiver, credentials, warmup };
      const sweep = process.env.BENCH_PGBOSS_SWEEP;
      if (sweep !== undefined) return await sweepPgBoss(setup, sweep, count);
      const drain = (variant: Variant, n: number, profiled: boolean) =>
        variant === "sqlite" || variant === "postgres"
          ? drainOurs(setup, variant, n, profiled)
          : variant === "got-loop"
            ? drainGotLoop(setup, n)
            : drainAnchor(setup, { label: variant, ...ANCHORS[variant] }, n, profiled);
      // Round 0 warms the cluster and the receiver up and is not counted; variants interleave.
      for (let round = 0; round <= context.runs; round++) {
        for (const variant of variants) {
          const result = await drain(variant, round === 0 ? Math.min(count, 500) : count, round === 1);
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
    const spread = (variant: Variant, figure: "rate" | "cpu") =>
      formatSpread(
        (samples.get(variant) ?? []).map((s) => s[figure]),
        0,
      );
    const size = `${count} deliveries after ${warmup} unmeasured, 1 worker process × ${CONCURRENCY} in flight`;
    const unit = (variant: Variant, figure: "rate" | "cpu") =>
      variant === "sqlite" || variant === "postgres" || variant === "got-loop"
        ? figure === "rate"
          ? "deliveries/s"
          : "µs/delivery"
        : figure === "rate"
          ? "jobs/s"
          : "µs/job";
    const rateNote: Record<Variant, string> = {
      sqlite: size,
      postgres: "goal >= 0.7",
      "graphile-worker": ANCHORS["graphile-worker"].note,
      "graphile-worker-best": ANCHORS["graphile-worker-best"].note,
      "pg-boss": ANCHORS["pg-boss"].note,
      "got-loop":
        "the ceiling: the bare got loop (sender.throughput's), same receiver, 50 in flight, no queue",
    };
    const results: BenchResult[] = [];
    for (const variant of VARIANTS) {
      const rate = row(variant, "rate");
      const cpu = row(variant, "cpu");
      results.push(
        ratioRow(
          rate.name,
          rate.value,
          unit(variant, "rate"),
          row("sqlite", "rate"),
          `${rateNote[variant]}; ${spread(variant, "rate")}`,
        ),
        ratioRow(cpu.name, cpu.value, unit(variant, "cpu"), row("sqlite", "cpu"), spread(variant, "cpu")),
      );
    }
    // Each round drains every variant back to back, so a round's own ratio is the steadier figure on a
    // shared machine; the row gives the ratio of the medians and, in its notes, the rounds' ratios.
    for (const [ours, theirs] of VS_ROWS) {
      const mine = samples.get(ours) ?? [];
      const other = samples.get(theirs) ?? [];
      const rounds = mine.map((s, i) => s.rate / (other[i]?.rate ?? Number.NaN));
      const goal =
        theirs === "got-loop"
          ? "the ceiling for a got POST per delivery; "
          : ours === "postgres"
            ? "goal >= 1.2; "
            : "";
      results.push(
        ratioRow(
          `${NAME}.${ours}.vs-${theirs}`,
          row(ours, "rate").value,
          "deliveries/s",
          row(theirs, "rate"),
          `${goal}per round: ${formatSpread(rounds)}`,
        ),
      );
    }
    const notes: Record<keyof PostgresCost, string> = {
      statements: "client-side count of pg queries sent by the worker process during the drain",
      commits: "pg_stat_database.xact_commit of the drained database; goal <= 0.1",
      walBytes: "pg_current_wal_lsn() before/after (whole cluster); goal: half of today's",
      serverCpu: "the PostgreSQL server's CPU (postmaster and backends, /proc) during the drain",
    };
    const costUnit = { statements: "statements", commits: "commits", walBytes: "bytes", serverCpu: "µs CPU" };
    for (const figure of ["statements", "commits", "walBytes", "serverCpu"] as const) {
      const cost = (variant: "postgres" | Anchor) => ({
        name:
          variant === "postgres"
            ? `sender.postgres.${slug[figure]}-per-delivery`
            : `sender.${variant}.${slug[figure]}-per-job`,
        value: of(variant, (s) => s.cost?.[figure]),
      });
      // Ours against graphile-worker's defaults, as before; the anchors at their best beside it.
      const theirs = cost("graphile-worker");
      results.push(
        ratioRow(
          cost("postgres").name,
          cost("postgres").value,
          `${costUnit[figure]}/delivery`,
          theirs,
          notes[figure],
        ),
      );
      for (const anchor of ["graphile-worker", "graphile-worker-best", "pg-boss"] as const) {
        results.push(ratioRow(cost(anchor).name, cost(anchor).value, `${costUnit[figure]}/job`, theirs));
      }
    }
    return results;
  },
};
