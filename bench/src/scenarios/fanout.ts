import { createBenchCredentials, credentialsEnv } from "../bench-credentials.js";
import type { BenchResult } from "../bench-result.js";
import { median } from "../median.js";
import { ratioRow } from "../ratio-row.js";
import { runOutboxDrain } from "../run-outbox-drain.js";
import type { Scenario } from "../scenario.js";
import { loadSenderApi } from "../sender-api.js";
import { type BenchProcess, spawnBenchProcess } from "../spawn-bench-process.js";
import { skippedRows } from "./skipped-rows.js";

const NAME = "fanout";
const SIZES = [1, 10, 100, 1000] as const;

export const fanout: Scenario = {
  name: NAME,
  description:
    "Plants fanned out to 1, 10, 100, 1000 endpoints (one raw receiver behind all of them), same number of deliveries at every size: deliveries/s per size",
  async run(context) {
    let sender: Awaited<ReturnType<typeof loadSenderApi>>;
    try {
      sender = await loadSenderApi();
    } catch (error) {
      return skippedRows(
        SIZES.map((size) => `${NAME}.${size}.rate`),
        (error as Error).message,
      );
    }
    const credentials = createBenchCredentials();
    // The same number of deliveries at every size (plants × endpoints), so only the fan-out differs.
    const total = context.quick ? 200 : 3_000;
    const samples = new Map<number, number[]>(SIZES.map((size) => [size, []]));
    let receiver: BenchProcess | undefined;
    try {
      receiver = await spawnBenchProcess("servers/raw-http", { env: credentialsEnv(credentials) });
      for (let round = 1; round <= context.runs; round++) {
        for (const size of SIZES) {
          const result = await runOutboxDrain({
            sender,
            context,
            receiver,
            credentials,
            endpoints: size,
            plants: Math.max(1, Math.round(total / size)),
            concurrency: 50,
            perEndpointConcurrency: 50,
            timeoutMs: 120_000,
          });
          context.log(
            `${NAME}: run ${round}/${context.runs} ${size} endpoints ${Math.round(result.rate)} deliveries/s`,
          );
          samples.get(size)?.push(result.rate);
        }
      }
    } finally {
      await receiver?.stop();
    }
    const base = { name: `${NAME}.1.rate`, value: median(samples.get(1) ?? []) };
    return SIZES.map(
      (size): BenchResult =>
        ratioRow(
          `${NAME}.${size}.rate`,
          median(samples.get(size) ?? []),
          "deliveries/s",
          base,
          `${Math.max(1, Math.round(total / size))} plant(s) × ${size} endpoint(s); linear cost = ratio ≈ 1`,
        ),
    );
  },
};
