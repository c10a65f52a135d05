import { createBenchCredentials, credentialsEnv } from "../bench-credentials.js";
import type { BenchResult } from "../bench-result.js";
import { ratioRow } from "../ratio-row.js";
import { runOutboxDrain } from "../run-outbox-drain.js";
import type { Scenario } from "../scenario.js";
import { loadSenderApi } from "../sender-api.js";
import { type BenchProcess, spawnBenchProcess } from "../spawn-bench-process.js";
import { skippedRows } from "./skipped-rows.js";

const NAME = "backlog";

export const backlog: Scenario = {
  name: NAME,
  description:
    "A backlog queued while nothing could be delivered (no worker running), then drained by one worker process: rate and the worker's peak RSS at two backlog sizes",
  async run(context) {
    const large = 100_000;
    // Quick mode keeps the sizes (a 1,000 backlog drains before the worker's heap reaches its steady
    // size, which made a flat memory look like growth) and time-boxes each drain instead.
    const small = 10_000;
    const names = [small, large].flatMap((n) => [`${NAME}.${n}.rate`, `${NAME}.${n}.peak-rss`]);
    let sender: Awaited<ReturnType<typeof loadSenderApi>>;
    try {
      sender = await loadSenderApi();
    } catch (error) {
      return skippedRows(names, (error as Error).message);
    }
    const credentials = createBenchCredentials();
    const measured = new Map<
      number,
      { rate: number; peakRss: number; delivered: number; complete: boolean }
    >();
    let receiver: BenchProcess | undefined;
    try {
      receiver = await spawnBenchProcess("servers/raw-http", { env: credentialsEnv(credentials) });
      // One run per size: the large backlog alone takes the longest of any scenario.
      for (const size of [small, large]) {
        context.log(`${NAME}: queuing ${size} deliveries`);
        const result = await runOutboxDrain({
          sender,
          context,
          receiver,
          credentials,
          endpoints: 1,
          plants: size,
          concurrency: 50,
          perEndpointConcurrency: 50,
          timeoutMs: 60 * 60_000,
          // Quick mode times the first seconds of each drain: enough for the rate and the RSS peak,
          // which comes from claiming, not from how much of the backlog is left.
          timeBoxMs: context.quick ? 6_000 : 10 * 60_000,
        });
        context.log(
          `${NAME}: ${size} drained at ${Math.round(result.rate)} deliveries/s, peak RSS ${Math.round(result.peakRss / 2 ** 20)} MiB`,
        );
        measured.set(size, result);
      }
    } finally {
      await receiver?.stop();
    }
    const get = (size: number) =>
      measured.get(size) ?? { rate: Number.NaN, peakRss: Number.NaN, delivered: 0, complete: false };
    const drained = (size: number) =>
      get(size).complete
        ? `all ${size} drained`
        : `rate over the first ${get(size).delivered} delivered (time-boxed)`;
    const mib = (bytes: number) => bytes / 2 ** 20;
    const results: BenchResult[] = [];
    for (const size of [small, large]) {
      results.push(
        ratioRow(
          `${NAME}.${size}.rate`,
          get(size).rate,
          "deliveries/s",
          { name: `${NAME}.${small}.rate`, value: get(small).rate },
          drained(size),
        ),
      );
      results.push(
        ratioRow(
          `${NAME}.${size}.peak-rss`,
          mib(get(size).peakRss),
          "MiB",
          { name: `${NAME}.${small}.peak-rss`, value: mib(get(small).peakRss) },
          size === large ? "flat memory = ratio ≈ 1 at 10× the backlog" : "worker process VmHWM",
        ),
      );
    }
    return results;
  },
};
