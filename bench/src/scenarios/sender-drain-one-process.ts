import { loadavg } from "node:os";
import { join } from "node:path";
import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { createBenchCredentials } from "../bench-credentials.js";
import type { BenchResult } from "../bench-result.js";
import type {
  OneProcessDrainCommand,
  OneProcessDrainResult,
  OneProcessVariant,
} from "../clients/one-process-drain.js";
import { formatSpread } from "../format-spread.js";
import { median } from "../median.js";
import { ratioRow } from "../ratio-row.js";
import type { Scenario, ScenarioContext } from "../scenario.js";
import { senderUnavailableReason } from "../sender-api.js";
import { spawnBenchProcess } from "../spawn-bench-process.js";
import { summarizeCpuProfile } from "../summarize-cpu-profile.js";
import { skippedRows } from "./skipped-rows.js";

const NAME = "sender.drain.one-process";
const CONCURRENCY = 50;
const VARIANTS: readonly OneProcessVariant[] = [
  "got-loop",
  "got-bursts",
  "postgres",
  "graphile-worker-best",
  "sqlite",
];
const OURS = ["postgres", "sqlite"] as const;

const ROW_NAMES = [
  ...VARIANTS.flatMap((v) => [`${NAME}.${v}.rate`, `${NAME}.${v}.cpu`]),
  ...OURS.map((v) => `${NAME}.${v}.cpu-vs-graphile-worker-best`),
  ...OURS.map((v) => `${NAME}.${v}.cpu-vs-got-bursts`),
];

/** BENCH_ONE_PROCESS_VARIANTS=got-loop,postgres runs only those (the got loop is every ratio's baseline). */
function selectedVariants(): readonly OneProcessVariant[] {
  const wanted = process.env.BENCH_ONE_PROCESS_VARIANTS?.split(",").map((v) => v.trim());
  return wanted === undefined ? VARIANTS : VARIANTS.filter((v) => wanted.includes(v));
}

function logProfile(context: ScenarioContext, variant: OneProcessVariant, file: string): void {
  const summary = summarizeCpuProfile(file);
  const lines = [
    `${NAME} ${variant}: CPU profile of the measured part ${file}`,
    "  self time by module:",
    ...summary.modules.map((m) => `    ${(m.share * 100).toFixed(1).padStart(5)}%  ${m.label}`),
    "  self time by function:",
    ...summary.functions.map((f) => `    ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.label}`),
  ];
  context.log(lines.join("\n"));
}

const load = () => loadavg()[0]?.toFixed(1) ?? "?";

export const senderDrainOneProcess: Scenario = {
  name: NAME,
  description:
    "The queue, a raw node:http receiver and the timing in one process (issue 42): our outbox on PostgreSQL and SQLite, graphile-worker 0.18 at its best and the bare got loop (as 50 lanes, and in bursts of 50), the same signed POSTs, 50 in flight; deliveries/s and the whole process's CPU per delivery",
  async run(context) {
    const unavailable = await senderUnavailableReason();
    if (unavailable !== undefined) return skippedRows(ROW_NAMES, unavailable.split("\n")[0] ?? "");
    let postgres: TestPostgres;
    try {
      postgres = await startPostgres();
    } catch (error) {
      return skippedRows(ROW_NAMES, `PostgreSQL not available: ${(error as Error).message.split("\n")[0]}`);
    }
    const credentials = createBenchCredentials();
    const count = Number(process.env.BENCH_DRAIN_COUNT ?? (context.quick ? 3_000 : 5_000));
    const warmup = Number(process.env.BENCH_DRAIN_WARMUP ?? (context.quick ? 500 : 1_000));
    const variants = selectedVariants();
    const samples = new Map<OneProcessVariant, OneProcessDrainResult[]>(VARIANTS.map((v) => [v, []]));
    const loads: string[] = [];
    try {
      // Round 0 warms the cluster up and is not counted; variants interleave round by round.
      for (let round = 0; round <= context.runs; round++) {
        loads.push(load());
        for (const variant of variants) {
          const target =
            variant === "got-loop" || variant === "got-bursts"
              ? undefined
              : variant === "sqlite"
                ? join(context.tempDir(), "outbox.db")
                : await postgres.createDatabase();
          // With --profile, each variant's first measured drain is profiled, the measured part alone.
          const profile =
            round === 1 && context.profileDir !== undefined
              ? join(context.profileDir, `one-process-${variant}.cpuprofile`)
              : undefined;
          const drainer = await spawnBenchProcess("clients/one-process-drain", {
            ...(profile === undefined ? {} : { env: { BENCH_PROFILE_FILE: profile } }),
            timeoutMs: 60_000,
          });
          let result: OneProcessDrainResult;
          try {
            const command: OneProcessDrainCommand = {
              type: "drain",
              variant,
              ...(target === undefined ? {} : { target }),
              count: round === 0 ? Math.min(count, 500) : count,
              warmup,
              concurrency: CONCURRENCY,
              token: credentials.token,
              secret: credentials.secret,
            };
            result = await drainer.command<OneProcessDrainResult>(command);
          } finally {
            await drainer.stop();
          }
          if (profile !== undefined) logProfile(context, variant, profile);
          if (round === 0) continue;
          samples.get(variant)?.push(result);
          context.log(
            `${NAME}: run ${round}/${context.runs} ${variant} ${Math.round(result.rate)} deliveries/s, ${Math.round(result.cpuMicros)} µs CPU per delivery (${Math.round(result.systemMicros)} of it system)${result.roundTrips === undefined ? "" : `, ${result.roundTrips.toFixed(3)} outbox round trips per delivery`} (load ${load()})`,
          );
        }
      }
    } finally {
      await postgres.stop();
    }
    loads.push(load());
    const of = (variant: OneProcessVariant, figure: "rate" | "cpuMicros") =>
      (samples.get(variant) ?? []).map((s) => s[figure]);
    const row = (variant: OneProcessVariant, figure: "rate" | "cpuMicros") => ({
      name: `${NAME}.${variant}.${figure === "rate" ? "rate" : "cpu"}`,
      value: median(of(variant, figure)),
    });
    // Each round's own ratio (the variants of a round run back to back): steadier on a shared machine.
    const rounds = (variant: OneProcessVariant, base: OneProcessVariant, figure: "rate" | "cpuMicros") => {
      const theirs = of(base, figure);
      return formatSpread(of(variant, figure).map((v, i) => v / (theirs[i] ?? Number.NaN)));
    };
    const size = `${count} deliveries after ${warmup} unmeasured, ${CONCURRENCY} in flight; load ${loads.join(" → ")}`;
    const goal: Record<OneProcessVariant, { rate: string; cpu: string }> = {
      "got-loop": { rate: `the ceiling: no queue; ${size}`, cpu: "the whole process, receiver included" },
      "got-bursts": {
        rate: "the same got loop sending 50 at a time, the next 50 once all are answered: the sending pattern alone",
        cpu: "",
      },
      postgres: { rate: "goal >= 0.9 of the got loop", cpu: "goal <= 1.1 of the got loop" },
      "graphile-worker-best": { rate: "graphile-worker 0.18 at its best", cpu: "" },
      sqlite: { rate: "", cpu: "" },
    };
    const results: BenchResult[] = [];
    for (const variant of VARIANTS) {
      for (const figure of ["rate", "cpuMicros"] as const) {
        const own = row(variant, figure);
        const note = goal[variant][figure === "rate" ? "rate" : "cpu"];
        results.push(
          ratioRow(
            own.name,
            own.value,
            figure === "rate" ? "deliveries/s" : "µs/delivery",
            row("got-loop", figure),
            [
              note,
              formatSpread(of(variant, figure), 0),
              variant === "got-loop"
                ? ""
                : `per round vs the got loop: ${rounds(variant, "got-loop", figure)}`,
            ]
              .filter(Boolean)
              .join("; "),
          ),
        );
      }
    }
    for (const ours of OURS) {
      const own = row(ours, "cpuMicros");
      results.push(
        ratioRow(
          `${NAME}.${ours}.cpu-vs-graphile-worker-best`,
          own.value,
          "µs/delivery",
          row("graphile-worker-best", "cpuMicros"),
          `${ours === "postgres" ? "goal <= 1; " : ""}per round: ${rounds(ours, "graphile-worker-best", "cpuMicros")}`,
        ),
      );
    }
    // Our worker sends a claim's deliveries together: against the loop that sends the same way, what
    // the queue itself adds.
    for (const ours of OURS) {
      const own = row(ours, "cpuMicros");
      results.push(
        ratioRow(
          `${NAME}.${ours}.cpu-vs-got-bursts`,
          own.value,
          "µs/delivery",
          row("got-bursts", "cpuMicros"),
          `what the queue adds to a got loop sending in bursts; per round: ${rounds(ours, "got-bursts", "cpuMicros")}`,
        ),
      );
    }
    return results;
  },
};
