// Sends N signed deliveries at a fixed concurrency with one HTTP client (BENCH_CLIENT), the
// baselines the durable sender is compared with: got (what the sender uses), fetch, undici Pool.
import { Agent } from "node:http";
import got from "got";
import { Pool } from "undici";
import { createPlantSigner } from "../create-plant-signer.js";
import { answerOverIpc, markHandled } from "../server-kit/serve-over-ipc.js";

export interface HttpLoopCommand {
  url: string;
  count: number;
  concurrency: number;
  token: string;
  secret: string;
}

export interface HttpLoopResult {
  elapsedMs: number;
  cpuMicros: number;
  ok: number;
  failed: number;
}

type Send = (body: string, headers: Record<string, string>) => Promise<number>;

function createSender(kind: string, url: URL, concurrency: number): Send {
  if (kind === "got") {
    // One configured instance with a keep-alive agent sized to the concurrency; got's own retry
    // off, as the sender's outbox owns retries.
    const client = got.extend({
      agent: { http: new Agent({ keepAlive: true, maxSockets: concurrency }) },
      retry: { limit: 0 },
      throwHttpErrors: false,
    });
    return async (body, headers) => (await client.post(url, { body, headers })).statusCode;
  }
  if (kind === "fetch") {
    return async (body, headers) => {
      const response = await fetch(url, { method: "POST", body, headers });
      await response.arrayBuffer();
      return response.status;
    };
  }
  if (kind === "undici-pool") {
    const pool = new Pool(url.origin, { connections: concurrency });
    return async (body, headers) => {
      const response = await pool.request({ path: url.pathname, method: "POST", body, headers });
      await response.body.dump();
      return response.statusCode;
    };
  }
  throw new Error(`unknown BENCH_CLIENT ${kind}`);
}

const kind = process.env.BENCH_CLIENT ?? "got";
const senders = new Map<string, Send>();

answerOverIpc(async (payload) => {
  const command = payload as HttpLoopCommand;
  const key = `${command.url}|${command.concurrency}`;
  let send = senders.get(key);
  if (send === undefined) {
    send = createSender(kind, new URL(command.url), command.concurrency);
    senders.set(key, send);
  }
  const sign = createPlantSigner(command.secret, command.token);
  let next = 0;
  let ok = 0;
  let failed = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const lane = async () => {
    while (next < command.count) {
      next += 1;
      const delivery = sign();
      const status = await (send as Send)(delivery.body, delivery.headers);
      if (status >= 200 && status < 300) ok += 1;
      else failed += 1;
    }
  };
  await Promise.all(Array.from({ length: command.concurrency }, lane));
  const cpu = process.cpuUsage(cpuBefore);
  markHandled(ok);
  return {
    elapsedMs: performance.now() - started,
    cpuMicros: cpu.user + cpu.system,
    ok,
    failed,
  } satisfies HttpLoopResult;
});
process.send?.({ type: "ready" });
