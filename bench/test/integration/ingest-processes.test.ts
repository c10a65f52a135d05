import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postPlants } from "../../src/post-plants.js";
import { type BenchProcess, spawnBenchProcess } from "../../src/spawn-bench-process.js";
import type { StoreCount } from "../../src/store-api.js";

// The processes of the `sender.ingest` scenario, at a size that proves they work, not how fast: every
// request must be a 201 and every plant (and its delivery) must really be in the store, or the rates
// would be measuring refusals.
const credentials = { token: "bench-test-admin-token", secret: generateWebhookSecret() };
const started: BenchProcess[] = [];
const temp = mkdtempSync(join(tmpdir(), "bench-ingest-test-"));
let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);

afterAll(async () => {
  await Promise.all(started.map((p) => p.stop()));
  await postgres?.stop();
  rmSync(temp, { recursive: true, force: true });
});

async function startStore(target: string): Promise<BenchProcess> {
  const server = await spawnBenchProcess("servers/plant-store-admin", {
    env: { BENCH_TOKEN: credentials.token, BENCH_SECRET: credentials.secret, BENCH_STORE: target },
    timeoutMs: 60_000,
  });
  started.push(server);
  return server;
}

async function postOne(server: BenchProcess, token: string): Promise<number> {
  const response = await fetch(`${server.url}/plants`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Monstera" }),
  });
  await response.arrayBuffer();
  return response.status;
}

const targets: Record<string, () => Promise<string>> = {
  floor: async () => "floor",
  sqlite: async () => join(mkdtempSync(join(temp, "sqlite-")), "store", "store.db"),
  postgres: () => postgres.createDatabase(),
};

describe("the sender.ingest server processes", () => {
  it.each(Object.keys(targets))(
    "%s answers 201 to every POST /plants of the load and holds what it answered",
    async (variant) => {
      const server = await startStore(await (targets[variant] as () => Promise<string>)());
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const run = await postPlants(server, { amount: 120, connections: 10, adminToken: credentials.token });
      expect(run).toMatchObject({ created: 120, handled: 120, non2xx: 0, errors: 0 });
      expect(run.rate).toBeGreaterThan(0);
      expect(run.cpuMicrosPerPlant).toBeGreaterThan(0);
      // The floor stores nothing and never touches the outbox; a real store holds each plant and the
      // delivery it queued for the store's one endpoint.
      const held = await server.command<StoreCount>({ type: "count" });
      expect(held).toEqual({ plants: 120, deliveries: variant === "floor" ? 0 : 120 });
      // PostgreSQL's statements are counted client-side. Plants are written in groups (a group commit of
      // four statements however many plants it holds), so a loaded machine, which makes groups bigger,
      // sends fewer than one per plant (116 for 120 once): the count proves the counter sees the store's
      // queries, at least a group's four and the start-up's schema check.
      const statements = await server.command<number>({ type: "statements" });
      if (variant === "postgres") expect(statements).toBeGreaterThanOrEqual(5);
      else expect(statements).toBe(0);
    },
    120_000,
  );

  it.each(Object.keys(targets))(
    "%s refuses a wrong admin token with 401 and does not count it, so the measured route checks it",
    async (variant) => {
      const server = await startStore(await (targets[variant] as () => Promise<string>)());
      expect(await postOne(server, "not-the-admin-token")).toBe(401);
      expect((await server.stats()).handled).toBe(0);
      expect(await server.command<StoreCount>({ type: "count" })).toMatchObject({ plants: 0 });
      expect(await postOne(server, credentials.token)).toBe(201);
      expect((await server.stats()).handled).toBe(1);
    },
    120_000,
  );

  it("the floor answers 400 to a plant zod refuses, so validation is part of the floor", async () => {
    const server = await startStore("floor");
    const response = await fetch(`${server.url}/plants`, {
      method: "POST",
      headers: { authorization: `Bearer ${credentials.token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "" }),
    });
    expect(response.status).toBe(400);
    expect((await server.command<StoreCount>({ type: "count" })).plants).toBe(0);
  }, 60_000);
});
