import { createBenchCredentials } from "../bench-credentials.js";
import type { BenchResult } from "../bench-result.js";
import type { VerifyLoopCommand, VerifyLoopResult } from "../clients/verify-loop.js";
import { median } from "../median.js";
import { pinToCpu } from "../pin-to-cpu.js";
import { ratioRow } from "../ratio-row.js";
import type { Scenario } from "../scenario.js";
import { spawnBenchProcess } from "../spawn-bench-process.js";

const NAME = "receiver.verify";
/** The floor first: each round times every verifier in turn in one process, so load drift hits all of them. */
const VERIFIERS = ["floor", "standardwebhooks", "plant-receiver"] as const;
type Verifier = (typeof VERIFIERS)[number];

export const receiverVerify: Scenario = {
  name: NAME,
  description:
    "Verification alone (bearer, signature, timestamp, JSON.parse, zod), no HTTP, in a process of its own: createVerifier().verify vs bearer + standardwebhooks + JSON.parse + zod, and vs the floor (one node:crypto HMAC-SHA256 of id.timestamp.body + JSON.parse)",
  async run(context) {
    const credentials = createBenchCredentials();
    // Many short rounds rather than a few long ones: on a shared machine a burst of load from
    // elsewhere lands on one figure of one round, and the median of many rounds leaves it out.
    const calls = context.quick ? 4_000 : 10_000;
    const rounds = context.runs * 5;
    const samples = new Map<Verifier, number[]>(VERIFIERS.map((kind) => [kind, []]));
    // Each round's ratio to that round's floor: the two were measured seconds apart, so a burst of
    // load from elsewhere on the machine moves both.
    const roundRatios: number[] = [];
    const failures: string[] = [];
    const verifier = await spawnBenchProcess("clients/verify-loop");
    // One CPU for the whole run: every figure on the same core, none of them moved mid-loop.
    if (verifier.child.pid !== undefined) pinToCpu(verifier.child.pid, 1);
    try {
      for (let round = 0; round <= rounds; round++) {
        const measured = new Map<Verifier, number>();
        for (const kind of VERIFIERS) {
          const result = await verifier.command<VerifyLoopResult>({
            kind,
            count: calls,
            ...credentials,
          } satisfies VerifyLoopCommand);
          measured.set(kind, result.microsPerCall);
          if (result.failures > 0) failures.push(`${kind}: ${result.failures} failed`);
        }
        // Round 0 is the warm-up.
        if (round === 0) continue;
        for (const [kind, micros] of measured) samples.get(kind)?.push(micros);
        roundRatios.push((measured.get("plant-receiver") as number) / (measured.get("floor") as number));
        context.log(
          `${NAME}: run ${round}/${rounds} ${[...measured].map(([k, v]) => `${k} ${v.toFixed(2)} µs`).join(", ")}`,
        );
      }
    } finally {
      await verifier.stop();
    }
    const row = (kind: Verifier) => ({ name: `${NAME}.${kind}.cpu`, value: median(samples.get(kind) ?? []) });
    const floor = row("floor");
    const results: BenchResult[] = [
      ratioRow(
        floor.name,
        floor.value,
        "µs/call",
        undefined,
        "one node:crypto HMAC-SHA256 of id.timestamp.body + JSON.parse",
      ),
      ratioRow(
        `${NAME}.plant-receiver.cpu-vs-floor`,
        row("plant-receiver").value,
        "µs/call",
        floor,
        `goal: ratio <= 2 (bearer, signature, timestamp, parse, zod vs the floor); median of each round's own ratio: ${median(roundRatios).toFixed(2)}`,
      ),
      ratioRow(
        row("standardwebhooks").name,
        row("standardwebhooks").value,
        "µs/call",
        floor,
        "bearer + standardwebhooks verify + JSON.parse + zod, no HTTP",
      ),
      ratioRow(
        row("plant-receiver").name,
        row("plant-receiver").value,
        "µs/call",
        row("standardwebhooks"),
        ["createVerifier().verify, no HTTP, no dedup", ...failures].join("; "),
      ),
    ];
    return results;
  },
};
