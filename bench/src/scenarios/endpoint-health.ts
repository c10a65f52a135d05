import { join } from "node:path";
import Database from "better-sqlite3";
import type { BenchResult } from "../bench-result.js";
import { median } from "../median.js";
import { ratioRow } from "../ratio-row.js";
import type { Scenario } from "../scenario.js";
import { loadSenderApi } from "../sender-api.js";
import { skippedRows } from "./skipped-rows.js";

const NAME = "store.endpoint-health";
const HOUR = 3_600_000;
/** Attempts inside the hour the store page asks about; the rest of the log is older. */
const IN_WINDOW = 2_000;

interface HealthOutbox {
  addEndpoint(input: { url: string; token: string; secrets: string[] }): Promise<{ id: number }>;
  enqueue(message: { payload: unknown }): Promise<unknown>;
  listDeliveries(options: { limit: number }): Promise<unknown[]>;
  endpointStats(since: Date): Promise<unknown[]>;
  close(): Promise<void>;
}

/** Milliseconds per call: the median of `runs` timings of `reps` calls each. */
async function msPerCall(runs: number, reps: number, call: () => Promise<unknown>): Promise<number> {
  await call();
  const timings: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    for (let rep = 0; rep < reps; rep++) await call();
    timings.push((performance.now() - started) / reps);
  }
  return median(timings);
}

export const endpointHealth: Scenario = {
  name: NAME,
  description:
    "The store page's per-endpoint success rate over the last hour (`Outbox.endpointStats`) on SQLite, with the same 2,000 attempts in the hour and 10× more older ones: ms per call beside `listDeliveries(50)` on the same file",
  async run(context) {
    const sizes = [20_000, 200_000];
    const names = sizes.flatMap((size) => [`${NAME}.${size}`, `${NAME}.${size}.list-deliveries`]);
    let sender: Awaited<ReturnType<typeof loadSenderApi>>;
    try {
      sender = await loadSenderApi();
    } catch (error) {
      return skippedRows(names, (error as Error).message);
    }
    const measured = new Map<number, { stats: number; list: number }>();
    for (const size of sizes) {
      const file = join(context.tempDir(), `health-${size}.db`);
      const outbox = sender.createSqliteOutbox(file) as unknown as HealthOutbox;
      try {
        if (typeof outbox.endpointStats !== "function")
          return skippedRows(names, "@plant-store/sender has no Outbox.endpointStats");
        await outbox.addEndpoint({
          url: "http://127.0.0.1:9/hook",
          token: "bench-token",
          secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
        });
        for (let plant = 0; plant < 1_000; plant++)
          await outbox.enqueue({ payload: { id: plant, name: "p" } });
        // The attempt log written directly: the figure is about reading it, not about how it was made.
        const db = new Database(file);
        const now = Date.now();
        const insert = db.prepare(
          `INSERT INTO webhook_attempts (delivery_id, attempt, worker_id, started_at, duration_ms, status, error, response_body, outcome)
           VALUES (?, ?, 'bench', ?, 5, ?, NULL, '', 'delivered')`,
        );
        db.transaction(() => {
          for (let index = 0; index < size; index++) {
            const recent = index < IN_WINDOW;
            const startedAt = recent
              ? now - Math.floor((index / IN_WINDOW) * (HOUR - 60_000))
              : now - HOUR - 60_000 - Math.floor(((index - IN_WINDOW) / size) * 47 * HOUR);
            insert.run(1 + (index % 1_000), index + 1, startedAt, index % 4 === 0 ? 500 : 200);
          }
        })();
        db.close();
        const since = new Date(now - HOUR);
        const reps = context.quick ? 20 : 50;
        const stats = await msPerCall(context.runs, reps, () => outbox.endpointStats(since));
        const list = await msPerCall(context.runs, reps, () => outbox.listDeliveries({ limit: 50 }));
        context.log(
          `${NAME}: ${size} attempts: endpointStats ${stats.toFixed(2)} ms, listDeliveries ${list.toFixed(2)} ms`,
        );
        measured.set(size, { stats, list });
      } finally {
        await outbox.close();
      }
    }
    const results: BenchResult[] = [];
    const [small] = sizes as [number, number];
    const get = (size: number) => measured.get(size) ?? { stats: Number.NaN, list: Number.NaN };
    for (const size of sizes) {
      results.push(
        ratioRow(
          `${NAME}.${size}.list-deliveries`,
          get(size).list,
          "ms/call",
          undefined,
          "the page's other read: the latest 50 deliveries",
        ),
      );
      results.push(
        ratioRow(
          `${NAME}.${size}`,
          get(size).stats,
          "ms/call",
          size === small
            ? { name: `${NAME}.${size}.list-deliveries`, value: get(size).list }
            : { name: `${NAME}.${small}`, value: get(small).stats },
          size === small
            ? `${IN_WINDOW} attempts in the hour, ${size - IN_WINDOW} older`
            : "same hour, 10× the older log: ratio ≈ 1 when only the hour is read",
        ),
      );
    }
    return results;
  },
};
