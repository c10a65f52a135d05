import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { createBenchCredentials } from "../bench-credentials.js";
import type { BenchResult } from "../bench-result.js";
import { formatSpread } from "../format-spread.js";
import { median } from "../median.js";
import { ratioRow } from "../ratio-row.js";
import { readPostgresCounters } from "../read-postgres-counters.js";
import type { Scenario } from "../scenario.js";
import { loadSenderApi, type SenderApi } from "../sender-api.js";
import { skippedRows } from "./skipped-rows.js";

const NAME = "sender.filter";
const ENDPOINTS = 100;
const DATABASES = ["sqlite", "postgres"] as const;
type Database = (typeof DATABASES)[number];
/**
 * `none`: 100 endpoints without a filter. `distinct`: each with a filter of its own (100 evaluations per
 * message). `shared`: all with the same filter (one evaluation per message). The filters of these two
 * pass every plant, so each queues the same 100 deliveries per message as `none`: the difference is
 * what filtering costs (finding the filtered endpoints, evaluating), not deliveries saved.
 * `excluding`: 100 distinct filters as a real one, each excluding the plants of one shelf in 10
 * (`payload.shelf`, the plant's id modulo 10, in every variant's plants), so every message is excluded
 * by 10 endpoints: 90 deliveries and 10 recorded exclusions (rows and counts) against `none`'s 100.
 */
const VARIANTS = ["none", "distinct", "shared", "excluding"] as const;
type Variant = (typeof VARIANTS)[number];

const filterOf = (variant: Variant, n: number): string | undefined => {
  const plant = `payload.tag == "tropical" && payload.name.startsWith("M")`;
  switch (variant) {
    case "none":
      return undefined;
    case "shared":
      return plant;
    case "distinct":
      return `${plant} && payload.id >= ${-n}`;
    case "excluding":
      return `${plant} && payload.shelf != ${n % 10}`;
  }
};

const deliveriesOf = (variant: Variant) => (variant === "excluding" ? ENDPOINTS - ENDPOINTS / 10 : ENDPOINTS);

/** `cpu`: the enqueue's CPU (on PostgreSQL this process and the server's); `client`: this process's alone. */
type Figure = "cpu" | "client" | "wall";
const FIGURES: Record<Database, Figure[]> = { sqlite: ["cpu", "wall"], postgres: ["cpu", "client", "wall"] };
const rowName = (database: Database, variant: Variant, figure: Figure) =>
  `${NAME}.${database}.${variant}.${figure}`;

/**
 * Issue 41: filter evaluation adds at most 10 % to the enqueue cost with 100 endpoints, each with a
 * filter, against none. Sequential `enqueue` calls of one plant each, in this process, on a fresh store
 * per run; variants interleaved round by round, each round starting with the next. Figures per
 * message: CPU time (`cpu`: the library's call, its statements and the evaluation, with the database's
 * work: on SQLite in this process, on PostgreSQL the whole server's CPU time read from /proc beside
 * this process's, which counts the two readings' own connections too, a few µs per message alike in
 * every variant), on PostgreSQL this process's alone (`client`), and wall time (`wall`, which a loaded
 * machine makes noisy).
 */
export const senderFilter: Scenario = {
  name: NAME,
  description: `enqueue with ${ENDPOINTS} endpoints each with a CEL filter (a distinct one each, or one shared, passing every plant; or distinct ones excluding 1 in 10), against ${ENDPOINTS} without, on SQLite and PostgreSQL: µs per message (PostgreSQL: with the server's CPU)`,
  async run(context) {
    const names = DATABASES.flatMap((database) =>
      VARIANTS.flatMap((variant) => FIGURES[database].map((figure) => rowName(database, variant, figure))),
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

    async function once(database: Database, variant: Variant): Promise<Partial<Record<Figure, number>>> {
      const url = database === "postgres" ? await (postgres as TestPostgres).createDatabase() : undefined;
      const serverCpu = async () =>
        url === undefined
          ? 0
          : (await readPostgresCounters((postgres as TestPostgres).url, new URL(url).pathname.slice(1)))
              .serverCpuMicros;
      const outbox =
        url === undefined
          ? await sender.createSqliteOutbox(join(context.tempDir(), "filter.db"))
          : await sender.createPostgresOutbox(url);
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
        const plant = (id: number) => ({
          payload: { id, name: "Monstera deliciosa", tag: "tropical", shelf: id % 10 },
        });
        for (let id = 0; id < warmup; id++) await outbox.enqueue(plant(id));
        const serverBefore = await serverCpu();
        const cpuBefore = process.cpuUsage();
        const start = performance.now();
        for (let id = warmup; id < warmup + amount; id++) {
          const result = await outbox.enqueue(plant(id));
          if (result.deliveries !== deliveriesOf(variant))
            throw new Error(
              `${database} ${variant}: ${result.deliveries} deliveries, not ${deliveriesOf(variant)}`,
            );
        }
        const wall = ((performance.now() - start) * 1000) / amount;
        const cpu = process.cpuUsage(cpuBefore);
        const client = (cpu.user + cpu.system) / amount;
        if (url === undefined) return { cpu: client, wall };
        const server = ((await serverCpu()) - serverBefore) / amount;
        return { cpu: client + server, client, wall };
      } finally {
        await outbox.close();
      }
    }

    const databases = DATABASES.filter((database) => database !== "postgres" || postgres !== undefined);
    try {
      for (let round = 1; round <= context.runs; round++)
        // Each round starts with another variant: none is always first, nor measured on the first
        // database of a round.
        for (const database of databases)
          for (const variant of VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length] as Variant)) {
            const us = await once(database, variant);
            for (const figure of FIGURES[database])
              samples.get(rowName(database, variant, figure))?.push(us[figure] ?? Number.NaN);
            context.log(
              `${NAME}: run ${round}/${context.runs} ${database} ${variant} ${us.cpu?.toFixed(0)} µs CPU${us.client === undefined ? "" : ` (${us.client.toFixed(0)} this process)`}, ${us.wall?.toFixed(0)} µs wall per message`,
            );
          }
    } finally {
      await postgres?.stop();
    }
    const results: BenchResult[] = [];
    for (const database of DATABASES)
      for (const figure of FIGURES[database]) {
        const rows = VARIANTS.map((variant) => rowName(database, variant, figure));
        if (!databases.includes(database)) {
          results.push(...skippedRows(rows, "PostgreSQL not available"));
          continue;
        }
        const none = rowName(database, "none", figure);
        const base = { name: none, value: median(samples.get(none) ?? []) };
        for (const variant of VARIANTS) {
          const row = rowName(database, variant, figure);
          const values = samples.get(row) ?? [];
          results.push(
            ratioRow(
              row,
              median(values),
              "µs/message",
              base,
              `${ENDPOINTS} endpoints, ${deliveriesOf(variant)} deliveries per message, ${amount} messages after ${warmup}; runs ${formatSpread(values, 0)}`,
            ),
          );
        }
      }
    return results;
  },
};
