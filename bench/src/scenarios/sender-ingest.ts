import { join } from "node:path";
import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { type BenchCredentials, createBenchCredentials, credentialsEnv } from "../bench-credentials.js";
import type { BenchResult } from "../bench-result.js";
import { formatSpread } from "../format-spread.js";
import { median } from "../median.js";
import { type PostPlantsResult, postPlants } from "../post-plants.js";
import { ratioRow } from "../ratio-row.js";
import { type PostgresCounters, readPostgresCounters } from "../read-postgres-counters.js";
import { profileExecArgv, reportCpuProfile } from "../report-cpu-profile.js";
import type { Scenario, ScenarioContext } from "../scenario.js";
import { type BenchProcess, spawnBenchProcess } from "../spawn-bench-process.js";
import { loadStoreApi, type StoreCount } from "../store-api.js";
import { skippedRows } from "./skipped-rows.js";

const NAME = "sender.ingest";
const CONNECTIONS = 50;
const VARIANTS = ["floor", "sqlite", "postgres"] as const;
type Variant = (typeof VARIANTS)[number];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The two counters this scenario reads (the reader may return more). */
type Cost = Pick<PostgresCounters, "commits" | "walBytes">;

export class IngestCheckError extends Error {
  readonly code = "ERR_INGEST_CHECK";
  override readonly name = "IngestCheckError";
}

interface Sample {
  rate: number;
  cpu: number;
  /** PostgreSQL only: per plant added, the store's start-up excluded. */
  commits?: number;
  walBytes?: number;
  /** Statements the store process sent, per plant of the measured run (client-side count). */
  statements?: number;
}

const rowName = (variant: Variant, figure: string) => `${NAME}.${variant}.${figure}`;
const ROW_NAMES = [
  ...VARIANTS.flatMap((v) => [rowName(v, "rate"), rowName(v, "cpu")]),
  rowName("sqlite", "per-round"),
  rowName("postgres", "per-round"),
  rowName("postgres", "statements-per-plant"),
  rowName("postgres", "commits-per-plant"),
  rowName("postgres", "wal-bytes-per-plant"),
];

interface IngestSetup {
  context: ScenarioContext;
  credentials: BenchCredentials;
  postgres: TestPostgres | undefined;
  warmup: number;
  amount: number;
}

/** Where a variant's store lives: nothing, a fresh SQLite file, or a fresh database of the cluster. */
async function freshTarget(setup: IngestSetup, variant: Variant): Promise<string> {
  if (variant === "floor") return "floor";
  if (variant === "sqlite") return join(setup.context.tempDir(), "store", "store.db");
  if (setup.postgres === undefined) throw new Error("no PostgreSQL");
  return setup.postgres.createDatabase();
}

const databaseOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice(1));

function startServer(setup: IngestSetup, target: string, execArgv: string[] = []): Promise<BenchProcess> {
  return spawnBenchProcess("servers/plant-store-admin", {
    env: { ...credentialsEnv(setup.credentials), BENCH_STORE: target },
    execArgv,
    timeoutMs: 60_000,
  });
}

/** A number that cannot be trusted (a refused request, a plant missing from the store) stops the scenario. */
function check(variant: Variant, what: string, run: PostPlantsResult, expected: number): void {
  if (run.created !== expected || run.handled !== expected || run.non2xx > 0 || run.errors > 0)
    throw new IngestCheckError(
      `${variant} ${what}: ${run.created} of ${expected} answered 201 (server counted ${run.handled}), ${run.non2xx} non-2xx, ${run.errors} errors`,
    );
}

/**
 * One measurement: a new server process on a fresh store, `warmup` plants (JIT, caches, pool) then
 * `amount` measured, then the store must hold every plant and its delivery. On PostgreSQL the
 * database's commits and the cluster's WAL are read before the process starts and after it exited
 * (a backend reports its counters at exit), less what the store's start-up alone costs.
 */
async function ingestOnce(
  setup: IngestSetup,
  variant: Variant,
  startup?: Cost,
  profiled = false,
): Promise<Sample> {
  const target = await freshTarget(setup, variant);
  const counters = () =>
    setup.postgres === undefined ? undefined : readPostgresCounters(setup.postgres.url, databaseOf(target));
  const before = variant === "postgres" ? await counters() : undefined;
  // With --profile, the first round's server of each variant runs under --cpu-prof.
  const server = await startServer(setup, target, profiled ? profileExecArgv(setup.context) : []);
  const options = { connections: CONNECTIONS, adminToken: setup.credentials.token };
  let measured: PostPlantsResult;
  let statements = 0;
  try {
    check(variant, "warm-up", await postPlants(server, { ...options, amount: setup.warmup }), setup.warmup);
    const statementsBefore = await server.command<number>({ type: "statements" });
    measured = await postPlants(server, { ...options, amount: setup.amount });
    statements = ((await server.command<number>({ type: "statements" })) - statementsBefore) / setup.amount;
    check(variant, "measured run", measured, setup.amount);
    const total = setup.warmup + setup.amount;
    const held = await server.command<StoreCount>({ type: "count" });
    const deliveries = variant === "floor" ? 0 : total;
    if (held.plants !== total || held.deliveries !== deliveries)
      throw new IngestCheckError(
        `${variant}: the store holds ${held.plants} plants and ${held.deliveries} deliveries after ${total} answered 201 (expected ${total} and ${deliveries})`,
      );
  } finally {
    await server.stop();
    if (profiled) reportCpuProfile(setup.context, `ingest-${variant}`, server.child.pid);
  }
  const sample: Sample = { rate: measured.rate, cpu: measured.cpuMicrosPerPlant };
  if (before === undefined) return sample;
  await sleep(500);
  const after = (await counters()) as PostgresCounters;
  const plants = setup.warmup + setup.amount;
  return {
    ...sample,
    statements,
    commits: (after.commits - before.commits - (startup?.commits ?? 0)) / plants,
    walBytes: (after.walBytes - before.walBytes - (startup?.walBytes ?? 0)) / plants,
  };
}

/** What starting and stopping the store server costs PostgreSQL with no request at all. */
async function startupCost(setup: IngestSetup): Promise<Cost> {
  const postgres = setup.postgres as TestPostgres;
  const target = await postgres.createDatabase();
  const before = await readPostgresCounters(postgres.url, databaseOf(target));
  await (await startServer(setup, target)).stop();
  await sleep(500);
  const after = await readPostgresCounters(postgres.url, databaseOf(target));
  return { commits: after.commits - before.commits, walBytes: after.walBytes - before.walBytes };
}

export const senderIngest: Scenario = {
  name: NAME,
  description:
    "POST /plants through the store's admin app, 50 connections, no worker: on a fresh SQLite file and a fresh PostgreSQL database (group commit), beside the same app with storage replaced by nothing (the floor); PostgreSQL commits and WAL bytes per plant",
  async run(context) {
    try {
      await loadStoreApi();
    } catch (error) {
      return skippedRows(ROW_NAMES, (error as Error).message.split("\n")[0] ?? "");
    }
    let postgres: TestPostgres | undefined;
    let postgresSkipped = "";
    try {
      postgres = await startPostgres();
    } catch (error) {
      postgresSkipped = `PostgreSQL not available: ${(error as Error).message.split("\n")[0]}`;
    }
    const variants = VARIANTS.filter((v) => v !== "postgres" || postgres !== undefined);
    const setup: IngestSetup = {
      context,
      credentials: createBenchCredentials(),
      postgres,
      warmup: context.quick ? 3_000 : 5_000,
      amount: context.quick ? 1_000 : 5_000,
    };
    const samples = new Map<Variant, Sample[]>(VARIANTS.map((v) => [v, []]));
    let startup: Cost | undefined;
    try {
      if (postgres !== undefined) {
        startup = await startupCost(setup);
        context.log(
          `${NAME}: store start-up alone: ${startup.commits} commits, ${startup.walBytes} WAL bytes`,
        );
      }
      // Variants interleave round by round, so load from elsewhere on the machine hits each of them.
      for (let round = 1; round <= context.runs; round++) {
        for (const variant of variants) {
          const result = await ingestOnce(setup, variant, startup, round === 1);
          samples.get(variant)?.push(result);
          const cost =
            result.commits === undefined
              ? ""
              : `, ${(result.statements ?? 0).toFixed(2)} statements, ${result.commits.toFixed(3)} commits and ${Math.round(result.walBytes ?? 0)} WAL bytes per plant`;
          context.log(
            `${NAME}: run ${round}/${context.runs} ${variant} ${Math.round(result.rate)} plants/s, ${Math.round(result.cpu)} µs server CPU per plant${cost}`,
          );
        }
        const floor = samples.get("floor")?.at(-1)?.rate ?? Number.NaN;
        const ratios = variants
          .filter((v) => v !== "floor")
          .map((v) => `${v} ${((samples.get(v)?.at(-1)?.rate ?? Number.NaN) / floor).toFixed(2)}`);
        context.log(`${NAME}: run ${round}/${context.runs} rate / floor: ${ratios.join(", ")}`);
      }
    } finally {
      await postgres?.stop();
    }
    const of = (variant: Variant, pick: (s: Sample) => number | undefined) =>
      median((samples.get(variant) ?? []).flatMap((s) => pick(s) ?? []));
    const row = (variant: Variant, figure: "rate" | "cpu") => ({
      name: rowName(variant, figure),
      value: of(variant, (s) => s[figure]),
    });
    const floorRate = row("floor", "rate");
    const floorCpu = row("floor", "cpu");
    const size = `${setup.amount} plants after ${setup.warmup} warm-up, ${CONNECTIONS} connections, a new process per run`;
    const results: BenchResult[] = [
      ratioRow(
        floorRate.name,
        floorRate.value,
        "plants/s",
        floorRate,
        `${size}; storage replaced by nothing`,
      ),
      ratioRow(floorCpu.name, floorCpu.value, "µs/plant", floorCpu, "server process CPU"),
    ];
    for (const variant of ["sqlite", "postgres"] as const) {
      if (!variants.includes(variant)) {
        results.push(
          ...skippedRows(
            ROW_NAMES.filter((n) => n.startsWith(`${NAME}.${variant}.`)),
            postgresSkipped,
          ),
        );
        continue;
      }
      const rate = row(variant, "rate");
      const cpu = row(variant, "cpu");
      const spread = formatSpread(
        (samples.get(variant) ?? []).map((s) => s.rate),
        0,
      );
      results.push(
        ratioRow(
          rate.name,
          rate.value,
          "plants/s",
          floorRate,
          `goal >= 0.5; all in the store; median of ${context.runs} runs, ${spread}`,
        ),
      );
      // Each round measures the floor and both stores back to back: a round's own ratio is the steadier figure.
      const floors = (samples.get("floor") ?? []).map((s) => s.rate);
      const rounds = (samples.get(variant) ?? []).map((s, i) => s.rate / (floors[i] ?? Number.NaN));
      results.push(
        ratioRow(
          rowName(variant, "per-round"),
          median(rounds),
          "× floor",
          undefined,
          `goal >= 0.5; median of each round's own ratio to the floor: ${formatSpread(rounds)}`,
        ),
      );
      results.push(
        ratioRow(
          cpu.name,
          cpu.value,
          "µs/plant",
          floorCpu,
          variant === "postgres" ? "store process only, not PostgreSQL's" : "SQLite runs in the process",
        ),
      );
    }
    if (variants.includes("postgres")) {
      results.push(
        ratioRow(
          rowName("postgres", "statements-per-plant"),
          of("postgres", (s) => s.statements),
          "statements/plant",
          undefined,
          "client-side count of pg queries the store process sent during the measured run",
        ),
        ratioRow(
          rowName("postgres", "commits-per-plant"),
          of("postgres", (s) => s.commits),
          "commits/plant",
          undefined,
          "pg_stat_database.xact_commit, start-up excluded; 1 = a transaction per plant",
        ),
        ratioRow(
          rowName("postgres", "wal-bytes-per-plant"),
          of("postgres", (s) => s.walBytes),
          "bytes/plant",
          undefined,
          "pg_current_wal_lsn() before/after (whole cluster), start-up excluded",
        ),
      );
    }
    return results;
  },
};
