import { join } from "node:path";
import { createBenchCredentials } from "../bench-credentials.js";
import type { BenchResult } from "../bench-result.js";
import { formatSpread } from "../format-spread.js";
import { median } from "../median.js";
import { ratioRow } from "../ratio-row.js";
import { runOperatorLatency } from "../run-operator-latency.js";
import type { Scenario } from "../scenario.js";
import { loadSenderApi, type SenderApi } from "../sender-api.js";
import { skippedRows } from "./skipped-rows.js";

const NAME = "sender.claim-idle-endpoints";
const IDLE = 3_000;
const PLANTS = 20;
const ROWS = {
  baseP50: `${NAME}.none.p50`,
  idleP50: `${NAME}.idle-${IDLE}.p50`,
  baseCpu: `${NAME}.none.idle-cpu`,
  idleCpu: `${NAME}.idle-${IDLE}.idle-cpu`,
  baseClaim: `${NAME}.none.claim-cpu`,
  idleClaim: `${NAME}.idle-${IDLE}.claim-cpu`,
};
const CLAIMS = 2_000;

/**
 * The CPU of one claim with nothing due, in this process (µs): `CLAIMS` in a row on a SQLite file holding
 * the operator's endpoint, and `idle` more of a subscriber's (rate-limited, not verified), as the worker
 * claims at serve's defaults. The claim, not the worker's poll around it: composing the claim's statement
 * at every call cost it about three times SQLite's own work.
 */
async function idleClaimCpu(sender: SenderApi, file: string, secret: string, idle: number): Promise<number> {
  const outbox = sender.createSqliteOutbox(file);
  try {
    await outbox.addEndpoint({ url: "http://127.0.0.1:9/operator", token: "token", secrets: [secret] });
    if (idle > 0) {
      const { subscriber } = await outbox.addSubscriber({ name: "Idle" });
      for (let n = 0; n < idle; n++)
        await outbox.addEndpoint({
          url: `http://127.0.0.1:9/idle/${n}`,
          token: "token",
          secrets: [secret],
          subscriberId: subscriber.id,
          rateLimit: 5,
        });
    }
    const request = {
      workerId: "w_bench",
      limit: 16,
      leaseMs: 60_000,
      perEndpointLimit: 2,
      excludeEndpointIds: [],
    };
    // Warmed first: the row is the claim's steady cost, not its first calls'.
    for (let n = 0; n < CLAIMS / 4; n++) await outbox.claimDue(request);
    const before = process.cpuUsage();
    for (let n = 0; n < CLAIMS; n++) await outbox.claimDue(request);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / CLAIMS;
  } finally {
    await outbox.close();
  }
}

/**
 * Issue 37: endpoints with nothing due must cost a claim nothing. A subscriber's 3,000 rate-limited
 * endpoints, not verified (so never sent anything), against none: the operator endpoint's p50 latency
 * (20 plants, one every 0.25 s) and the worker process's CPU while nothing is due (polling once a second,
 * watching the file). Goal: ratio ≤ 1.1 each (23 and 12 before).
 */
export const claimIdleEndpoints: Scenario = {
  name: NAME,
  description: `The operator endpoint's p50 latency and the idle worker's CPU (SQLite store, one worker at serve's defaults) with ${IDLE} idle rate-limited endpoints of a subscriber, against none`,
  async run(context) {
    let sender: SenderApi;
    try {
      sender = await loadSenderApi();
    } catch (error) {
      return skippedRows(Object.values(ROWS), (error as Error).message.split("\n")[0] ?? "");
    }
    const credentials = createBenchCredentials();
    const idleMs = 10_000;
    const runs = {
      none: { p50: [] as number[], cpu: [] as number[] },
      idle: { p50: [] as number[], cpu: [] as number[] },
    };
    const claims = { none: [] as number[], idle: [] as number[] };
    for (let round = 0; round <= context.runs; round++)
      for (const kind of ["none", "idle"] as const) {
        const result = await runOperatorLatency({
          sender,
          context,
          credentials,
          plants: PLANTS,
          intervalMs: 250,
          idleMs,
          setup: async (outbox, url) => {
            if (kind === "none") return;
            const { subscriber } = await outbox.addSubscriber({ name: "Idle" });
            for (let n = 0; n < IDLE; n++)
              await outbox.addEndpoint({
                url: `${url}/idle/${n}`,
                token: "token",
                secrets: [credentials.secret],
                subscriberId: subscriber.id,
                rateLimit: 5,
              });
          },
        });
        const claimCpu = await idleClaimCpu(
          sender,
          join(context.tempDir(), `claims-${kind}-${round}.db`),
          credentials.secret,
          kind === "idle" ? IDLE : 0,
        );
        // Round 0 warms up and is not counted.
        if (round === 0) continue;
        claims[kind].push(claimCpu);
        runs[kind].p50.push(result.p50);
        runs[kind].cpu.push(result.idleCpuPercent);
        context.log(
          `${NAME}: round ${round}/${context.runs} ${kind} p50 ${result.p50.toFixed(1)} ms, idle CPU ${result.idleCpuPercent.toFixed(2)} %, ${claimCpu.toFixed(1)} µs CPU per idle claim`,
        );
      }
    const baseP50 = { name: ROWS.baseP50, value: median(runs.none.p50) };
    const baseCpu = { name: ROWS.baseCpu, value: median(runs.none.cpu) };
    const results: BenchResult[] = [
      ratioRow(
        ROWS.baseP50,
        baseP50.value,
        "ms",
        undefined,
        `operator endpoint only; ${formatSpread(runs.none.p50, 1)}`,
      ),
      ratioRow(
        ROWS.idleP50,
        median(runs.idle.p50),
        "ms",
        baseP50,
        `+ ${IDLE} unverified rate-limited endpoints; goal: ratio <= 1.1; ${formatSpread(runs.idle.p50, 1)}`,
      ),
      ratioRow(
        ROWS.baseCpu,
        baseCpu.value,
        "% of a core",
        undefined,
        `worker process over ${idleMs / 1000} s with nothing due; ${formatSpread(runs.none.cpu, 2)}`,
      ),
      ratioRow(
        ROWS.idleCpu,
        median(runs.idle.cpu),
        "% of a core",
        baseCpu,
        `+ ${IDLE} unverified rate-limited endpoints; goal: ratio <= 1.1; ${formatSpread(runs.idle.cpu, 2)}`,
      ),
      ratioRow(
        ROWS.baseClaim,
        median(claims.none),
        "µs/claim",
        undefined,
        `${CLAIMS} claims in a row with nothing due, in this process (SQLite file, operator endpoint only); ${formatSpread(claims.none, 1)}`,
      ),
      ratioRow(
        ROWS.idleClaim,
        median(claims.idle),
        "µs/claim",
        { name: ROWS.baseClaim, value: median(claims.none) },
        `+ ${IDLE} unverified rate-limited endpoints; ${formatSpread(claims.idle, 1)}`,
      ),
    ];
    return results;
  },
};
