import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OneProcessDrainCommand, OneProcessDrainResult } from "../../src/clients/one-process-drain.js";
import { drainOutbox } from "../../src/drain-outbox.js";
import { readPostgresCounters } from "../../src/read-postgres-counters.js";
import { runOutboxDrain } from "../../src/run-outbox-drain.js";
import type { ScenarioContext } from "../../src/scenario.js";
import { loadSenderApi } from "../../src/sender-api.js";
import { type BenchProcess, spawnBenchProcess } from "../../src/spawn-bench-process.js";

// The processes of the `sender.drain` scenario, at a size that proves they work, not how fast.
const credentials = { token: "bench-test-token", secret: generateWebhookSecret() };
const env = { BENCH_TOKEN: credentials.token, BENCH_SECRET: credentials.secret };
const started: BenchProcess[] = [];
let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);

afterAll(async () => {
  await Promise.all(started.map((p) => p.stop()));
  await postgres?.stop();
});

async function start(name: string, extraEnv: Record<string, string>): Promise<BenchProcess> {
  const child = await spawnBenchProcess(name, { env: { ...env, ...extraEnv }, timeoutMs: 60_000 });
  started.push(child);
  return child;
}

const databaseOf = (url: string) => new URL(url).pathname.slice(1);

describe("the PostgreSQL drain processes", () => {
  it("graphile-worker delivers every job it was filled with, signed so that the verifying receiver accepts it, and its statements and commits are counted", async () => {
    const db = await postgres.createDatabase();
    // The verifying receiver answers 401 to a bad signature: a job would then fail, not count.
    const receiver = await start("servers/plant-receiver", {});
    const worker = await start("clients/graphile-worker", {
      BENCH_PG_URL: db,
      BENCH_RECEIVER_URL: `${receiver.url}/plant/webhook`,
      BENCH_CONCURRENCY: "10",
    });
    await worker.command({ type: "fill", count: 40 });
    const before = await readPostgresCounters(postgres.url, databaseOf(db));
    const statementsBefore = await worker.command<number>({ type: "statements" });
    const drain = await drainOutbox({ workers: [worker], receiver, expected: 40, timeoutMs: 60_000 });
    const statementsAfter = await worker.command<number>({ type: "statements" });
    await worker.stop();
    expect(drain).toMatchObject({ delivered: 40, complete: true });
    expect((await receiver.stats()).handled).toBe(40);
    // At least one statement per job: fetching or completing it.
    expect(statementsAfter - statementsBefore).toBeGreaterThanOrEqual(40);
    const after = await readPostgresCounters(postgres.url, databaseOf(db));
    expect(after.commits).toBeGreaterThan(before.commits);
    expect(after.walBytes).toBeGreaterThan(before.walBytes);
  }, 120_000);

  it("graphile-worker at its best settings delivers every job, signed, with fewer commits than jobs (completions batched)", async () => {
    const db = await postgres.createDatabase();
    const receiver = await start("servers/plant-receiver", {});
    const worker = await start("clients/graphile-worker", {
      BENCH_PG_URL: db,
      BENCH_RECEIVER_URL: `${receiver.url}/plant/webhook`,
      BENCH_CONCURRENCY: "10",
      BENCH_GRAPHILE_BEST: "1",
    });
    await worker.command({ type: "fill", count: 60 });
    const before = await readPostgresCounters(postgres.url, databaseOf(db));
    const drain = await drainOutbox({ workers: [worker], receiver, expected: 60, timeoutMs: 60_000 });
    await worker.stop();
    expect(drain).toMatchObject({ delivered: 60, complete: true });
    expect((await receiver.stats()).handled).toBe(60);
    const after = await readPostgresCounters(postgres.url, databaseOf(db));
    // With defaults each job takes a commit to fetch and one to complete (about 120 here); the local
    // queue fetches many at once and completions are batched.
    expect(after.commits - before.commits).toBeLessThan(60);
  }, 120_000);

  it("times a drain only after its warm-up, and calls the start hook before anything is delivered", async () => {
    const db = await postgres.createDatabase();
    const receiver = await start("servers/raw-http", {});
    const worker = await start("clients/graphile-worker", {
      BENCH_PG_URL: db,
      BENCH_RECEIVER_URL: `${receiver.url}/plant/webhook`,
      BENCH_CONCURRENCY: "10",
      BENCH_GRAPHILE_BEST: "1",
    });
    await worker.command({ type: "fill", count: 50 });
    const handledAtStart: number[] = [];
    const drain = await drainOutbox({
      workers: [worker],
      receiver,
      expected: 30,
      warmup: 20,
      timeoutMs: 60_000,
      beforeStart: async () => {
        // A meter's reading takes time (it waits for idle backends to report): the drain must not run yet.
        // A real wait: it stands for that slow reading, which the drain must wait out, not an event.
        await new Promise((resolve) => setTimeout(resolve, 300));
        handledAtStart.push((await receiver.stats()).handled);
      },
    });
    await worker.stop();
    expect(handledAtStart).toEqual([0]);
    // What arrived during the warm-up (20, or a few more in flight as it ended) is not timed, but a
    // meter read before the start divides by every delivery since.
    expect(drain.complete).toBe(true);
    expect(drain.delivered).toBeLessThanOrEqual(30);
    expect(drain.delivered).toBeGreaterThanOrEqual(50 - 20 - 10); // at most 10 in flight as the warm-up ended
    expect(drain.deliveredSinceStart).toBe(50);
    expect((await receiver.stats()).handled).toBe(50);
  }, 120_000);

  it("pg-boss delivers every job, in batches of its workers, signed so that the verifying receiver accepts it", async () => {
    const db = await postgres.createDatabase();
    const receiver = await start("servers/plant-receiver", {});
    const worker = await start("clients/pg-boss", {
      BENCH_PG_URL: db,
      BENCH_RECEIVER_URL: `${receiver.url}/plant/webhook`,
      BENCH_CONCURRENCY: "10",
      BENCH_PGBOSS_WORKERS: "2",
      BENCH_PGBOSS_BATCH: "25",
    });
    await worker.command({ type: "fill", count: 80 });
    const statementsBefore = await worker.command<number>({ type: "statements" });
    const drain = await drainOutbox({ workers: [worker], receiver, expected: 80, timeoutMs: 60_000 });
    const statementsAfter = await worker.command<number>({ type: "statements" });
    await worker.stop();
    expect(drain).toMatchObject({ delivered: 80, complete: true });
    expect((await receiver.stats()).handled).toBe(80);
    // A fetch and a completion per batch of 25: a handful of statements, far fewer than jobs.
    expect(statementsAfter - statementsBefore).toBeGreaterThanOrEqual(4);
    expect(statementsAfter - statementsBefore).toBeLessThan(80);
  }, 120_000);

  it("our outbox worker on PostgreSQL delivers a filled outbox and its statements are counted through the sender's own pg", async () => {
    const db = await postgres.createDatabase();
    const receiver = await start("servers/raw-http", {});
    const context: ScenarioContext = {
      quick: true,
      runs: 1,
      log: () => undefined,
      tempDir: () => mkdtempSync(join(tmpdir(), "bench-test-")),
    };
    const counts: number[] = [];
    const read = async (workers: readonly BenchProcess[]) => {
      counts.push(await (workers[0] as BenchProcess).command<number>({ type: "statements" }));
    };
    const drain = await runOutboxDrain({
      sender: await loadSenderApi(),
      context,
      receiver,
      credentials,
      endpoints: 1,
      plants: 30,
      target: db,
      concurrency: 10,
      timeoutMs: 60_000,
      beforeDrain: read,
      afterDrain: read,
    });
    expect(drain).toMatchObject({ delivered: 30, complete: true });
    expect(counts).toHaveLength(2);
    // At most 10 in flight: 30 deliveries take at least three claiming statements, each of which the
    // counter must have seen (records ride on claims since issue 16, so fewer than one per delivery).
    expect((counts[1] as number) - (counts[0] as number)).toBeGreaterThanOrEqual(3);
  }, 120_000);
});

describe("the sender.drain.one-process drainer", () => {
  it.each(["got-loop", "got-bursts", "postgres", "sqlite", "graphile-worker-best"] as const)(
    "%s fills, warms up and times exactly the measured deliveries, with the process's CPU per delivery",
    async (variant) => {
      const drainer = await start("clients/one-process-drain", {});
      const target =
        variant === "got-loop" || variant === "got-bursts"
          ? undefined
          : variant === "sqlite"
            ? join(mkdtempSync(join(tmpdir(), "bench-test-")), "outbox.db")
            : await postgres.createDatabase();
      const result = await drainer.command<OneProcessDrainResult>({
        type: "drain",
        variant,
        ...(target === undefined ? {} : { target }),
        count: 40,
        warmup: 20,
        concurrency: 10,
        token: credentials.token,
        secret: credentials.secret,
      } satisfies OneProcessDrainCommand);
      expect(result.delivered).toBe(40);
      expect(result.rate).toBeGreaterThan(0);
      expect(result.cpuMicros).toBeGreaterThan(0);
      // Ours counts the worker's calls to its outbox (at least one claim or record for the 40); the others have none.
      if (variant === "postgres" || variant === "sqlite") expect(result.roundTrips).toBeGreaterThan(0);
      else expect(result.roundTrips).toBeUndefined();
    },
    120_000,
  );
});
