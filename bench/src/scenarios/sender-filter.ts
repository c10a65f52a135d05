import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { createBenchCredentials } from "../bench-credentials.js";
import type { BenchResult } from "../bench-result.js";
import { formatSpread } from "../format-spread.js";
import { median } from "../median.js";
import { ratioRow } from "../ratio-row.js";
import type { Scenario } from "../scenario.js";
import { type BenchOutbox, loadSenderApi, type SenderApi } from "../sender-api.js";
import { skippedRows } from "./skipped-rows.js";

const NAME = "sender.filter";
const ENDPOINTS = 100;
const DATABASES = ["sqlite", "postgres"] as const;
type Database = (typeof DATABASES)[number];
/**
 * `none`: 100 endpoints without a filter. `distinct`: each with a filter of its own (100 evaluations per
 * message). `shared`: all with the same filter (one evaluation per message). Every filter passes every
 * plant, so each variant queues the same 100 deliveries per message: the difference is what filtering
 * costs (finding the filtered endpoints, evaluating), not deliveries saved.
 */
const VARIANTS = ["none", "distinct", "shared"] as const;
type Variant = (typeof VARIANTS)[number];

const filterOf = (variant: Variant, n: number): string | undefined =>
  variant === "none"
    ? undefined
    : variant === "shared"
      ? `payload.tag == "tropical" && payload.name.startsWith("M")`
      : `payload.tag == "tropical" && payload.name.startsWith("M") && payload.id >= ${-n}`;

type Figure = "cpu" | "wall";
const rowName = (database: Database, variant: Variant, figure: Figure) =>
  `${NAME}.${database}.${variant}.${figure}`;

/**
 * Issue 41: filter evaluation adds at most 10 % to the enqueue cost with 100 endpoints, each with a
 * filter, against none. Sequential `enqueue` calls of one plant each, in this process, on a fresh store
 * per run; variants interleaved round by round. Two figures per message: this process's CPU time (`cpu`:
 * the library's call, its statements and the evaluation; on SQLite the database's work too, on
 * PostgreSQL not the server's) and wall time (`wall`, which a loaded machine makes noisy).
 */
export const senderFilter: Scenario = {
  name: NAME,
  description: `enqueue with ${ENDPOINTS} endpoints each with a CEL filter (a distinct one each, or one shared), against ${ENDPOINTS} without, on SQLite and PostgreSQL: µs per message`,
  async run(context) {
    const FIGURES: Figure[] = ["cpu", "wall"];
    const names = DATABASES.flatMap((database) =>
      VARIANTS.flatMap((variant) => FIGURES.map((figure) => rowName(database, variant, figure))),
    );
    let sender: SenderApi;
    try {
      sender = await loadSenderApi();
    } catch (error) {
      return skippedRows(names, (error as Error).message.split("\n")[0] ?? "");
    }
    let postgres: TestPostgres | undefined;
    try {
      postgres = await startPostgres();
    } catch {
      postgres = undefined;
    }
    const credentials = createBenchCredentials();
    const warmup = context.quick ? 200 : 500;
    const amount = context.quick ? 500 : 2_000;
    const samples = new Map<string, number[]>(names.map((name) => [name, []]));

    async function open(database: Database): Promise<BenchOutbox> {
      if (database === "sqlite") return sender.createSqliteOutbox(join(context.tempDir(), "filter.db"));
      return sender.createPostgresOutbox(await (postgres as TestPostgres).createDatabase());
    }

    async function once(database: Database, variant: Variant): Promise<Record<Figure, number>> {
      const outbox = await open(database);
      try {
        for (let n = 0; n < ENDPOINTS; n++) {
          const filter = filterOf(variant, n);
          await outbox.addEndpoint({
            url: `http://127.0.0.1:9/hook/${n}`,
            token: "token",
            secrets: [credentials.secret],
            ...(filter === undefined ? {} : { filter }),
          });
        }
        const plant = (id: number) => ({ payload: { id, name: "Monstera deliciosa", tag: "tropical" } });
        for (let id = 0; id < warmup; id++) await outbox.enqueue(plant(id));
        const cpuBefore = process.cpuUsage();
        const start = performance.now();
        for (let id = warmup; id < warmup + amount; id++) {
          const result = await outbox.enqueue(plant(id));
          if (result.deliveries !== ENDPOINTS)
            throw new Error(`${database} ${variant}: ${result.deliveries} deliveries, not ${ENDPOINTS}`);
        }
        const wall = ((performance.now() - start) * 1000) / amount;
        const cpu = process.cpuUsage(cpuBefore);
        return { cpu: (cpu.user + cpu.system) / amount, wall };
      } finally {
        await outbox.close();
      }
    }

    const databases = DATABASES.filter((database) => database !== "postgres" || postgres !== undefined);
    try {
      for (let round = 1; round <= context.runs; round++)
        for (const database of databases)
          for (const variant of VARIANTS) {
            const us = await once(database, variant);
            for (const figure of FIGURES) samples.get(rowName(database, variant, figure))?.push(us[figure]);
            context.log(
              `${NAME}: run ${round}/${context.runs} ${database} ${variant} ${us.cpu.toFixed(0)} µs CPU, ${us.wall.toFixed(0)} µs wall per message`,
            );
          }
    } finally {
      await postgres?.stop();
    }
    const results: BenchResult[] = [];
    for (const database of DATABASES)
      for (const figure of FIGURES) {
        const rows = VARIANTS.map((variant) => rowName(database, variant, figure));
        if (!databases.includes(database)) {
          results.push(...skippedRows(rows, "PostgreSQL not available"));
          continue;
        }
        const none = rowName(database, "none", figure);
        const base = { name: none, value: median(samples.get(none) ?? []) };
        for (const row of rows) {
          const values = samples.get(row) ?? [];
          results.push(
            ratioRow(
              row,
              median(values),
              "µs/message",
              base,
              `${ENDPOINTS} endpoints, ${amount} messages after ${warmup}; runs ${formatSpread(values, 0)}`,
            ),
          );
        }
      }
    return results;
  },
};
