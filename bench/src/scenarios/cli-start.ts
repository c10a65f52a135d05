import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { type RunningApp, resolveAppCli, spawnApp } from "@plant-store/testing";
import { createBenchCredentials, credentialsEnv } from "../bench-credentials.js";
import type { BenchResult } from "../bench-result.js";
import { median, quantile } from "../median.js";
import { populateOutbox } from "../populate-outbox.js";
import { ratioRow } from "../ratio-row.js";
import type { Scenario } from "../scenario.js";
import { loadSenderApi } from "../sender-api.js";
import { type BenchProcess, spawnBenchProcess } from "../spawn-bench-process.js";
import { skippedRows } from "./skipped-rows.js";

const NAME = "cli.start";
const COMMANDS = ["node", "help", "plants-add"] as const;
type Command = (typeof COMMANDS)[number];

export class CliRunError extends Error {
  readonly code = "ERR_CLI_RUN";
  override readonly name = "CliRunError";
}

/** Runs one process to its end: wall time in ms from spawn to exit, and what it printed. */
function timeProcess(
  args: readonly string[],
): Promise<{ ms: number; code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ ms: performance.now() - started, code, stdout, stderr }));
  });
}

export const cliStart: Scenario = {
  name: NAME,
  description:
    "How long the store's command line takes from start to exit: `plant-store --help`, and `plants add` on the SQLite store a running `serve` uses (one endpoint, so each add queues a delivery), each beside `node -e 0` timed in the same round",
  async run(context) {
    const names = COMMANDS.map((c) => `${NAME}.${c}`);
    let sender: Awaited<ReturnType<typeof loadSenderApi>>;
    let cli: string;
    try {
      sender = await loadSenderApi();
      cli = resolveAppCli("plant-store", import.meta.url);
    } catch (error) {
      return skippedRows(names, (error as Error).message.split("\n")[0] ?? "");
    }
    const credentials = createBenchCredentials();
    const db = join(context.tempDir(), "store.db");
    const rounds = context.quick ? 10 : 25;
    const samples = new Map<Command, number[]>(COMMANDS.map((c) => [c, []]));
    let receiver: BenchProcess | undefined;
    let store: RunningApp | undefined;
    try {
      receiver = await spawnBenchProcess("servers/raw-http", { env: credentialsEnv(credentials) });
      await populateOutbox({
        sender,
        target: db,
        receiverUrl: `${receiver.url}/plant/webhook`,
        credentials,
        endpoints: 1,
        plants: 0,
      });
      store = await spawnApp("plant-store", cli, [
        "serve",
        "--port",
        "0",
        "--db",
        db,
        "--admin-token",
        randomBytes(16).toString("hex"),
        "--allow-private-targets",
      ]);
      const argsOf: Record<Command, (round: number) => string[]> = {
        node: () => ["-e", "0"],
        help: () => [cli, "--help"],
        "plants-add": (round) => [cli, "plants", "add", "--name", `bench plant ${round}`, "--db", db],
      };
      // Round 0 warms the file cache and is not counted; the three commands interleave in every round.
      for (let round = 0; round <= rounds; round++) {
        for (const command of COMMANDS) {
          const run = await timeProcess(argsOf[command](round));
          const expected =
            command === "help" ? "Usage: plant-store" : command === "plants-add" ? "Added plant" : "";
          if (run.code !== 0 || !run.stdout.includes(expected)) {
            throw new CliRunError(
              `${command} exited ${run.code}: ${(run.stderr || run.stdout).trim().split("\n").slice(-3).join(" / ")}`,
            );
          }
          if (round > 0) samples.get(command)?.push(run.ms);
        }
      }
      context.log(
        `${NAME}: ${COMMANDS.map((c) => `${c} ${Math.round(median(samples.get(c) ?? []))} ms`).join(", ")} (medians of ${rounds})`,
      );
    } finally {
      await store?.stop();
      await receiver?.stop();
    }
    const node = samples.get("node") ?? [];
    const base = { name: `${NAME}.node`, value: median(node) };
    const results: BenchResult[] = [
      ratioRow(
        base.name,
        base.value,
        "ms",
        base,
        `node -e 0, median of ${rounds} rounds; ${Math.round(Math.min(...node))}-${Math.round(Math.max(...node))} ms`,
      ),
    ];
    for (const command of ["help", "plants-add"] as const) {
      const times = samples.get(command) ?? [];
      const rounds = times.map((ms, i) => ms / (node[i] ?? Number.NaN));
      const what =
        command === "help" ? "plant-store --help" : "plant-store plants add on a running store's SQLite file";
      results.push(
        ratioRow(
          `${NAME}.${command}`,
          median(times),
          "ms",
          base,
          `goal <= 3; ${what}; each round's own ratio: median ${median(rounds).toFixed(2)}, quartiles ${quantile(rounds, 0.25).toFixed(2)}-${quantile(rounds, 0.75).toFixed(2)}, range ${Math.min(...rounds).toFixed(2)}-${Math.max(...rounds).toFixed(2)}`,
        ),
      );
    }
    return results;
  },
};
