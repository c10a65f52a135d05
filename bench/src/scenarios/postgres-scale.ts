import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { createBenchCredentials, credentialsEnv } from "../bench-credentials.js";
import type { BenchResult } from "../bench-result.js";
import { median } from "../median.js";
import { ratioRow } from "../ratio-row.js";
import { runOutboxDrain } from "../run-outbox-drain.js";
import type { Scenario } from "../scenario.js";
import { loadSenderApi } from "../sender-api.js";
import { type BenchProcess, spawnBenchProcess } from "../spawn-bench-process.js";
import { skippedRows } from "./skipped-rows.js";

const NAME = "postgres.scale";
const PROCESSES = [1, 2, 3] as const;

export const postgresScale: Scenario = {
  name: NAME,
  description:
    "Deliveries/s with 1, 2 and 3 worker processes sharing one PostgreSQL outbox (FOR UPDATE SKIP LOCKED), to one raw receiver",
  async run(context) {
    const names = PROCESSES.map((n) => `${NAME}.${n}.rate`);
    let sender: Awaited<ReturnType<typeof loadSenderApi>>;
    try {
      sender = await loadSenderApi();
    } catch (error) {
      return skippedRows(names, (error as Error).message);
    }
    let postgres: TestPostgres;
    try {
      postgres = await startPostgres();
    } catch (error) {
      return skippedRows(names, `PostgreSQL not available: ${(error as Error).message.split("\n")[0]}`);
    }
    const credentials = createBenchCredentials();
    const plants = context.quick ? 500 : 5_000;
    const samples = new Map<number, number[]>(PROCESSES.map((n) => [n, []]));
    let receiver: BenchProcess | undefined;
    try {
      receiver = await spawnBenchProcess("servers/raw-http", { env: credentialsEnv(credentials) });
      const runs = context.quick ? 1 : context.runs;
      for (let round = 1; round <= runs; round++) {
        for (const processes of PROCESSES) {
          const target = await postgres.createDatabase();
          const result = await runOutboxDrain({
            sender,
            context,
            receiver,
            credentials,
            endpoints: 1,
            plants,
            target,
            workers: processes,
            concurrency: 50,
            perEndpointConcurrency: 50,
            timeoutMs: 10 * 60_000,
          });
          context.log(
            `${NAME}: run ${round}/${runs} ${processes} process(es) ${Math.round(result.rate)} deliveries/s`,
          );
          samples.get(processes)?.push(result.rate);
        }
      }
    } finally {
      await receiver?.stop();
      await postgres.stop();
    }
    const base = { name: `${NAME}.1.rate`, value: median(samples.get(1) ?? []) };
    return PROCESSES.map(
      (n): BenchResult =>
        ratioRow(
          `${NAME}.${n}.rate`,
          median(samples.get(n) ?? []),
          "deliveries/s",
          base,
          `${plants} plants, ${n} worker process(es) × 50 in flight${context.quick ? ", 1 run (quick)" : ""}`,
        ),
    );
  },
};
