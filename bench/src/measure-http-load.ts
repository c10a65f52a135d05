import autocannon from "autocannon";
import type { BenchProcess } from "./spawn-bench-process.js";

export interface HttpLoadResult {
  /** Successful (2xx) requests per second. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Server process CPU time (user + system) per successfully handled request. */
  cpuMicrosPerRequest: number;
  non2xx: number;
  errors: number;
}

export interface HttpLoadOptions {
  path: string;
  durationSeconds: number;
  connections: number;
  /** A new request per call: every request gets its own webhook id and signature. */
  makeRequest: () => { body: string; headers: Record<string, string> };
}

/**
 * Drives one server process with autocannon on loopback and reads the server's own CPU time
 * before and after over IPC, so the load generator's CPU is never counted as the server's.
 */
export async function measureHttpLoad(
  server: BenchProcess,
  options: HttpLoadOptions,
): Promise<HttpLoadResult> {
  if (server.url === undefined) throw new Error("server has no URL");
  const before = await server.stats();
  const result = await autocannon({
    url: server.url,
    connections: options.connections,
    duration: options.durationSeconds,
    requests: [
      {
        method: "POST",
        path: options.path,
        setupRequest: (request) => {
          const next = options.makeRequest();
          return { ...request, body: next.body, headers: next.headers };
        },
      },
    ],
  });
  const after = await server.stats();
  const handled = after.handled - before.handled;
  return {
    rps: result["2xx"] / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    cpuMicrosPerRequest: handled > 0 ? (after.cpuMicros - before.cpuMicros) / handled : Number.NaN,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
