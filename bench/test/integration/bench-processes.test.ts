import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, describe, expect, it } from "vitest";
import type { HttpLoopResult } from "../../src/clients/http-loop.js";
import { createPlantSigner } from "../../src/create-plant-signer.js";
import { type BenchProcess, spawnBenchProcess } from "../../src/spawn-bench-process.js";

const credentials = { token: "bench-test-token", secret: generateWebhookSecret() };
const env = { BENCH_TOKEN: credentials.token, BENCH_SECRET: credentials.secret };
const started: BenchProcess[] = [];
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop()));
});

async function start(name: string, extraEnv: Record<string, string> = env): Promise<BenchProcess> {
  const child = await spawnBenchProcess(name, { env: extraEnv });
  started.push(child);
  return child;
}

async function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(`${url}/plant/webhook`, { method: "POST", body, headers });
  await response.arrayBuffer();
  return response.status;
}

describe("bench server processes", () => {
  const sign = createPlantSigner(credentials.secret, credentials.token);

  it.each([
    "raw-http",
    "koa-raw",
    "koa-router-raw",
    "naive-koa",
    "naive-koa-standardwebhooks",
    "plant-receiver",
    "plant-koa-middleware",
    "plant-verifier-raw-http",
    "plant-node-middleware",
  ])("%s listens on loopback, accepts the signed load and counts it with its CPU time", async (name) => {
    const server = await start(`servers/${name}`);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const before = await server.stats();
    const delivery = sign();
    expect(await post(server.url as string, delivery.body, delivery.headers)).toBe(200);
    const after = await server.stats();
    expect(after.handled - before.handled).toBe(1);
    expect(after.cpuMicros).toBeGreaterThan(0);
    expect(after.peakRss).toBeGreaterThan(0);
  });

  it.each([
    "naive-koa-standardwebhooks",
    "plant-receiver",
    "plant-koa-middleware",
    "plant-verifier-raw-http",
    "plant-node-middleware",
  ])(
    "%s refuses a body that does not match its signature, so the measured path really verifies",
    async (name) => {
      const server = await start(`servers/${name}`);
      const delivery = sign();
      const tampered = delivery.body.replace("Monstera", "Mmnstera");
      expect(await post(server.url as string, tampered, delivery.headers)).toBe(401);
      expect((await server.stats()).handled).toBe(0);
    },
  );

  it("the got loop client delivers every request it reports, as counted by the receiver", async () => {
    const receiver = await start("servers/raw-http");
    const client = await start("clients/http-loop", { BENCH_CLIENT: "got" });
    const result = await client.command<HttpLoopResult>({
      url: `${receiver.url}/plant/webhook`,
      count: 200,
      concurrency: 10,
      ...credentials,
    });
    expect(result).toMatchObject({ ok: 200, failed: 0 });
    expect((await receiver.stats()).handled).toBe(200);
  });
});
