import { createBenchCredentials, credentialsEnv } from "../bench-credentials.js";
import type { BenchResult } from "../bench-result.js";
import type { HttpLoopCommand, HttpLoopResult } from "../clients/http-loop.js";
import { median } from "../median.js";
import { ratioRow } from "../ratio-row.js";
import { profileExecArgv, reportCpuProfile } from "../report-cpu-profile.js";
import { runOutboxDrain } from "../run-outbox-drain.js";
import type { Scenario } from "../scenario.js";
import { loadSenderApi, type SenderApi } from "../sender-api.js";
import { type BenchProcess, spawnBenchProcess } from "../spawn-bench-process.js";

const NAME = "sender.throughput";
const CLIENTS = ["got", "fetch", "undici-pool"] as const;
type Client = (typeof CLIENTS)[number];
const CONCURRENCY = 50;
/**
 * Deliveries each sender makes before it is measured, --quick or not. A worker process is new at every
 * round, and warmed by 600 (the --quick count) its measured part still paid for its start: 874-886 µs of
 * CPU a delivery against 329-354 warmed by 3,000 (quick runs, load 1.5-2); the got loop, warmed by 600
 * too, cost 570-700 µs against 420-450 warmed by 2,000.
 */
const WARMUP = 2_000;

export const senderThroughput: Scenario = {
  name: NAME,
  description:
    "Plants delivered through the durable SQLite outbox + worker to a raw node:http receiver vs a bare got loop (baseline), fetch and an undici Pool loop (the limit), 50 in flight",
  async run(context) {
    const credentials = createBenchCredentials();
    const count = context.quick ? 600 : 10_000;
    const processes: BenchProcess[] = [];
    const samples = new Map<string, { rate: number; cpu: number }[]>();
    const record = (name: string, rate: number, cpu: number) => {
      const list = samples.get(name) ?? [];
      list.push({ rate, cpu });
      samples.set(name, list);
    };
    let sender: SenderApi | undefined;
    let unavailable: string | undefined;
    try {
      sender = await loadSenderApi();
    } catch (error) {
      unavailable = (error as Error).message;
    }
    const notes: string[] = [];
    let outboxError: string | undefined;
    try {
      const receiver = await spawnBenchProcess("servers/raw-http", { env: credentialsEnv(credentials) });
      processes.push(receiver);
      const url = `${receiver.url}/plant/webhook`;
      const clients = new Map<Client, BenchProcess>();
      for (const client of CLIENTS) {
        // With --profile, the bare got loop too: the baseline's profile beside the worker's.
        const child = await spawnBenchProcess("clients/http-loop", {
          env: { BENCH_CLIENT: client },
          ...(client === "got" ? { execArgv: profileExecArgv(context) } : {}),
        });
        processes.push(child);
        clients.set(client, child);
      }
      const command = (n: number): HttpLoopCommand => ({
        url,
        count: n,
        concurrency: CONCURRENCY,
        token: credentials.token,
        secret: credentials.secret,
      });
      for (const client of CLIENTS) await clients.get(client)?.command(command(WARMUP));
      for (let round = 1; round <= context.runs; round++) {
        for (const client of CLIENTS) {
          const result = await (clients.get(client) as BenchProcess).command<HttpLoopResult>(command(count));
          if (result.failed > 0) notes.push(`${client}: ${result.failed} failed`);
          const rate = (result.ok / result.elapsedMs) * 1000;
          context.log(`${NAME}: run ${round}/${context.runs} ${client} ${Math.round(rate)} deliveries/s`);
          record(client, rate, result.cpuMicros / Math.max(1, result.ok));
        }
        if (sender !== undefined && outboxError === undefined) {
          try {
            const outbox = await runOutboxDrain({
              sender,
              context,
              receiver,
              credentials,
              endpoints: 1,
              plants: count,
              // A fresh process per round: warmed as the got loop was, or the row times its JIT too
              // (600 cold deliveries in --quick drained at about half the warmed rate).
              warmupPlants: WARMUP,
              concurrency: CONCURRENCY,
              // One owner here: all 50 slots may go to it, as the got loop has 50 in flight.
              perOwnerConcurrency: CONCURRENCY,
              timeoutMs: 120_000,
              // Profiles the first measured worker only: one profile answers "where does the time go".
              ...(round === 1 ? { execArgv: profileExecArgv(context) } : {}),
              onExited: (pids) => {
                if (round === 1) reportCpuProfile(context, "outbox-worker", pids[0]);
              },
            });
            context.log(
              `${NAME}: run ${round}/${context.runs} outbox ${Math.round(outbox.rate)} deliveries/s`,
            );
            record("outbox", outbox.rate, outbox.cpuMicrosPerDelivery);
          } catch (error) {
            outboxError = (error as Error).message;
            context.log(`${NAME}: outbox failed: ${outboxError}`);
          }
        }
      }
    } finally {
      await Promise.all(processes.map((p) => p.stop()));
      const got = processes.find((p) => p.child.spawnargs.includes("--cpu-prof"));
      if (got !== undefined) reportCpuProfile(context, "got-loop", got.child.pid);
    }
    const rate = (name: string) => ({
      name: `${NAME}.${name}.rate`,
      value: median((samples.get(name) ?? []).map((s) => s.rate)),
    });
    const cpu = (name: string) => ({
      name: `${NAME}.${name}.cpu`,
      value: median((samples.get(name) ?? []).map((s) => s.cpu)),
    });
    const results: BenchResult[] = [];
    if (outboxError !== undefined) {
      results.push({
        ...ratioRow(`${NAME}.outbox.rate`, Number.NaN, "deliveries/s"),
        value: null,
        notes: `failed: ${outboxError}`,
      });
    } else if (unavailable === undefined) {
      results.push(
        ratioRow(`${NAME}.outbox.rate`, rate("outbox").value, "deliveries/s", rate("got"), "goal >= 0.9"),
      );
      results.push(ratioRow(`${NAME}.outbox.cpu`, cpu("outbox").value, "µs/delivery", cpu("got")));
    } else {
      results.push({
        ...ratioRow(`${NAME}.outbox.rate`, Number.NaN, "deliveries/s"),
        value: null,
        notes: `skipped: ${unavailable}`,
      });
    }
    for (const client of CLIENTS) {
      const extra = client === "got" && notes.length > 0 ? notes.join("; ") : undefined;
      results.push(
        ratioRow(`${NAME}.${client}.rate`, rate(client).value, "deliveries/s", rate("got"), extra),
      );
      results.push(ratioRow(`${NAME}.${client}.cpu`, cpu(client).value, "µs/delivery", cpu("got")));
    }
    return results;
  },
};
