import autocannon from "autocannon";
import type { BenchProcess } from "./spawn-bench-process.js";

export interface PostPlantsResult {
  /** 201s per second, from the first request sent to the server finishing its last 201. */
  rate: number;
  /** The server's own CPU time (user + system) per plant it answered 201. */
  cpuMicrosPerPlant: number;
  /** 201s the load generator saw. */
  created: number;
  /** 201s the server counted. */
  handled: number;
  non2xx: number;
  errors: number;
}

/**
 * Sends `amount` `POST /plants` (each a new plant) to the store admin server over `connections`
 * keep-alive connections with autocannon, and reads the server's CPU time over IPC before and after.
 */
export async function postPlants(
  server: BenchProcess,
  options: { amount: number; connections: number; adminToken: string },
): Promise<PostPlantsResult> {
  if (server.url === undefined) throw new Error("server has no URL");
  let sent = 0;
  // autocannon ends an `amount` run on its once-a-second tick, so its own clock (and a clock around
  // it) rounds every run up to whole seconds: the end is the server's own time of its last 201.
  const before = await server.stats(true);
  const startedAt = performance.timeOrigin + performance.now();
  const result = await autocannon({
    url: server.url,
    connections: options.connections,
    amount: options.amount,
    requests: [
      {
        method: "POST",
        path: "/plants",
        setupRequest: (request) => {
          sent += 1;
          return {
            ...request,
            body: JSON.stringify({ name: `Bench plant ${sent}`, tag: "bench" }),
            headers: { authorization: `Bearer ${options.adminToken}`, "content-type": "application/json" },
          };
        },
      },
    ],
  });
  const after = await server.stats();
  const seconds = (after.lastHandledAt - startedAt) / 1000;
  const handled = after.handled - before.handled;
  return {
    rate: handled > 0 && seconds > 0 ? handled / seconds : Number.NaN,
    cpuMicrosPerPlant: handled > 0 ? (after.cpuMicros - before.cpuMicros) / handled : Number.NaN,
    created: result["2xx"],
    handled,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
