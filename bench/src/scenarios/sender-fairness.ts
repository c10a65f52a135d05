import { createBenchCredentials } from "../bench-credentials.js";
import type { BenchResult } from "../bench-result.js";
import { formatSpread } from "../format-spread.js";
import { median } from "../median.js";
import { ratioRow } from "../ratio-row.js";
import { runOperatorLatency } from "../run-operator-latency.js";
import type { Scenario } from "../scenario.js";
import { loadSenderApi, type SenderApi } from "../sender-api.js";
import { skippedRows } from "./skipped-rows.js";

const NAME = "sender.fairness";
const HANGING = 10;
const PLANTS = 10;
const ROUNDS = 3;
const BASE_ROW = `${NAME}.alone.p50`;
const LOADED_ROW = `${NAME}.hanging-subscriber.p50`;

/**
 * Issue 37: a subscriber's endpoints that accept a request and never answer must not hold up the
 * operator's. The operator endpoint's p50 latency (10 plants, one every 0.5 s) with a subscriber holding
 * 10 such endpoints (every plant goes to them too) against the same store without them; median of 3
 * rounds, the two interleaved in each. Goal: ratio ≤ 1.5 (about 1,000 before: 42,506 ms against 43 ms).
 */
export const senderFairness: Scenario = {
  name: NAME,
  description: `The operator endpoint's p50 latency (${PLANTS} plants, one every 0.5 s, SQLite store, one worker at serve's defaults) with a subscriber holding ${HANGING} endpoints that never answer, against none`,
  async run(context) {
    let sender: SenderApi;
    try {
      sender = await loadSenderApi();
    } catch (error) {
      return skippedRows([BASE_ROW, LOADED_ROW], (error as Error).message.split("\n")[0] ?? "");
    }
    const credentials = createBenchCredentials();
    const alone: number[] = [];
    const loaded: number[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const base = await runOperatorLatency({
        sender,
        context,
        credentials,
        plants: PLANTS,
        intervalMs: 500,
        idleMs: 0,
        setup: async () => undefined,
      });
      if (round > 0) alone.push(base.p50);
      const hanging = await runOperatorLatency({
        sender,
        context,
        credentials,
        plants: PLANTS,
        intervalMs: 500,
        idleMs: 0,
        setup: async (outbox, url) => {
          const { subscriber } = await outbox.addSubscriber({ name: "Hangs" });
          for (let n = 0; n < HANGING; n++) {
            const endpoint = await outbox.addEndpoint({
              url: `${url}/hang/${n}`,
              token: "token",
              secrets: [credentials.secret],
              subscriberId: subscriber.id,
            });
            await outbox.markEndpointVerified(endpoint.id);
          }
        },
      });
      // Round 0 warms up (the worker's first plants load got, the JIT warms) and is not counted.
      if (round === 0) continue;
      loaded.push(hanging.p50);
      context.log(
        `${NAME}: round ${round}/${ROUNDS} alone ${base.p50.toFixed(1)} ms, hanging subscriber ${hanging.p50.toFixed(1)} ms`,
      );
    }
    const baseline = { name: BASE_ROW, value: median(alone) };
    const results: BenchResult[] = [
      ratioRow(BASE_ROW, baseline.value, "ms", undefined, `operator only; ${formatSpread(alone, 1)}`),
      ratioRow(
        LOADED_ROW,
        median(loaded),
        "ms",
        baseline,
        `+ a subscriber's ${HANGING} verified endpoints that never answer; goal: ratio <= 1.5; ${formatSpread(loaded, 1)}`,
      ),
    ];
    return results;
  },
};
