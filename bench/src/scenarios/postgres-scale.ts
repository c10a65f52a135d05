import { randomBytes } from "node:crypto";
import {
  type RunningApp,
  resolveAppCli,
  spawnApp,
  startPostgres,
  type TestPostgres,
} from "@plant-store/testing";
import { createBenchCredentials, credentialsEnv } from "../bench-credentials.js";
import type { BenchResult } from "../bench-result.js";
import { formatSpread } from "../format-spread.js";
import { median } from "../median.js";
import { populateOutbox } from "../populate-outbox.js";
import { ratioRow } from "../ratio-row.js";
import type { Scenario } from "../scenario.js";
import { loadSenderApi } from "../sender-api.js";
import { type BenchProcess, spawnBenchProcess } from "../spawn-bench-process.js";
import { skippedRows } from "./skipped-rows.js";

const NAME = "postgres.scale";
const PROCESSES = [1, 2, 3] as const;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class ScaleTimeoutError extends Error {
  readonly code = "ERR_SCALE_TIMEOUT";
  override readonly name = "ScaleTimeoutError";
}

export const postgresScale: Scenario = {
  name: NAME,
  description:
    "Deliveries/s with 1, 2 and 3 `plant-store serve` processes sharing one PostgreSQL outbox, to one raw receiver, measured once all of them are up",
  async run(context) {
    const names = PROCESSES.map((n) => `${NAME}.${n}.rate`);
    let sender: Awaited<ReturnType<typeof loadSenderApi>>;
    try {
      sender = await loadSenderApi();
    } catch (error) {
      return skippedRows(names, (error as Error).message.split("\n")[0] ?? "");
    }
    let postgres: TestPostgres;
    try {
      postgres = await startPostgres();
    } catch (error) {
      return skippedRows(names, `PostgreSQL not available: ${(error as Error).message.split("\n")[0]}`);
    }
    const credentials = createBenchCredentials();
    const plants = context.quick ? 1_500 : 5_000;
    // Three runs at least, even quick: one run of this scenario moved 3 processes' ratio from 0.60 to
    // 1.09 between two quick runs on the shared machine. Each round runs 1, 2 and 3 processes back to
    // back, so a round's own ratios are the steadier figure.
    const runs = context.quick ? 3 : context.runs;
    const samples = new Map<number, number[]>(PROCESSES.map((n) => [n, []]));
    let receiver: BenchProcess | undefined;
    try {
      receiver = await spawnBenchProcess("servers/raw-http", { env: credentialsEnv(credentials) });
      for (let round = 1; round <= runs; round++) {
        for (const count of PROCESSES) {
          const db = await postgres.createDatabase();
          await populateOutbox({
            sender,
            target: db,
            receiverUrl: `${receiver.url}/plant/webhook`,
            credentials,
            endpoints: 1,
            plants: 0,
          });
          const before = await receiver.stats();
          const stores: RunningApp[] = [];
          try {
            const args = [
              "serve",
              "--port",
              "0",
              "--db",
              db,
              "--admin-token",
              randomBytes(16).toString("hex"),
              "--allow-private-targets",
              "--concurrency",
              "50",
              "--per-endpoint-concurrency",
              "50",
            ];
            // One after another, on an outbox with no work yet: a serve process starting while another
            // delivers (or at the same moment as another) failed with "deadlock detected" in its
            // start-up schema statements (reported to the lead).
            for (let i = 0; i < count; i++) {
              stores.push(
                await spawnApp(`plant-store-${i + 1}`, resolveAppCli("plant-store", import.meta.url), args),
              );
            }
            // Timed from the moment every process is up, so start-up skew does not count; the
            // plants are added now (faster than they are delivered) and NOTIFY wakes the processes.
            const allUpAt = performance.timeOrigin + performance.now();
            const allUp = await receiver.stats(true);
            await populateOutbox({
              sender,
              target: db,
              receiverUrl: `${receiver.url}/plant/webhook`,
              credentials,
              endpoints: 0,
              plants,
              concurrency: 8,
            });
            context.log(
              `${NAME}: ${plants} plants added in ${Math.round(performance.timeOrigin + performance.now() - allUpAt)} ms`,
            );
            let latest = allUp;
            const deadline = Date.now() + 10 * 60_000;
            while (latest.handled - before.handled < plants) {
              if (Date.now() > deadline)
                throw new ScaleTimeoutError(`${count} serve processes did not finish`);
              await sleep(20);
              latest = await receiver.stats();
            }
            const delivered = latest.handled - allUp.handled;
            const rate = delivered > 0 ? delivered / ((latest.lastHandledAt - allUpAt) / 1000) : Number.NaN;
            context.log(
              `${NAME}: run ${round}/${runs} ${count} serve process(es) ${Math.round(rate)} deliveries/s (${delivered} timed of ${plants})`,
            );
            samples.get(count)?.push(rate);
          } finally {
            await Promise.all(stores.map((store) => store.stop()));
          }
        }
      }
    } finally {
      await receiver?.stop();
      await postgres.stop();
    }
    const base = { name: `${NAME}.1.rate`, value: median(samples.get(1) ?? []) };
    const results = PROCESSES.map(
      (n): BenchResult =>
        ratioRow(
          `${NAME}.${n}.rate`,
          median(samples.get(n) ?? []),
          "deliveries/s",
          base,
          `${plants} plants, ${n} serve process(es) × 50 in flight, added while all were up; median of ${runs} runs, ${formatSpread(samples.get(n) ?? [], 0)}`,
        ),
    );
    const ones = samples.get(1) ?? [];
    for (const n of [2, 3] as const) {
      const rounds = (samples.get(n) ?? []).map((rate, i) => rate / (ones[i] ?? Number.NaN));
      results.push(
        ratioRow(
          `${NAME}.${n}.per-round`,
          median(rounds),
          "× 1 process",
          undefined,
          `${n === 3 ? "goal >= 1.0 (2 cores); " : ""}median of each round's own ratio to 1 process: ${formatSpread(rounds)}`,
        ),
      );
    }
    return results;
  },
};
