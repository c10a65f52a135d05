import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { startPostgres, type TestPostgres, waitFor } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresOutbox } from "../../src/postgres.js";

const script = fileURLToPath(new URL("../fixtures/postgres-worker.mjs", import.meta.url));

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterAll(async () => {
  await postgres?.stop();
});

/** The most arrivals in any sliding second [t, t + 1000 ms) of `times` (ms, any order). */
function mostInASecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while ((sorted[end] as number) - (sorted[start] as number) >= 1000) start += 1;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

describe("a rate limit over two worker processes on PostgreSQL", () => {
  it("is a ceiling: no sliding second at the receiver holds more than the limit, the first one included", async () => {
    const url = await postgres.createDatabase();
    const outbox = await createPostgresOutbox(url);
    // Arrival times at a loopback receiver, by webhook id (each must come once).
    const arrivals = new Map<string, number[]>();
    const server: Server = createServer((request, response) => {
      const at = performance.now();
      const id = String(request.headers["webhook-id"]);
      arrivals.set(id, [...(arrivals.get(id) ?? []), at]);
      request.resume();
      request.on("end", () => response.writeHead(200).end());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const children: ChildProcess[] = [];
    try {
      const limit = 5;
      await outbox.addEndpoint({
        url: `http://127.0.0.1:${port}/limited`,
        token: "token",
        secrets: [generateWebhookSecret()],
        rateLimit: limit,
      });
      const count = 24;
      for (let n = 0; n < count; n++) await outbox.enqueue({ payload: { n } });
      for (let index = 0; index < 2; index++) {
        const child = spawn(process.execPath, [script, url], { stdio: ["ignore", "pipe", "inherit"] });
        children.push(child);
        let stdout = "";
        child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
          stdout += chunk;
        });
        await waitFor(() => (stdout.includes("started") ? true : undefined), 20_000);
      }
      await waitFor(() => (arrivals.size >= count ? true : undefined), 30_000);
      const times = [...arrivals.values()].flat();
      // Every delivery once, and no second over the limit: with a bucket, the first second took 2x.
      expect(times).toHaveLength(count);
      expect(mostInASecond(times)).toBeLessThanOrEqual(limit);
      await waitFor(async () =>
        (await outbox.listDeliveries({ limit: 100 })).every((delivery) => delivery.status === "delivered")
          ? true
          : undefined,
      );
    } finally {
      for (const child of children) child.kill("SIGTERM");
      await Promise.all(
        children.map((child) =>
          child.exitCode === null ? new Promise((resolve) => child.on("exit", resolve)) : undefined,
        ),
      );
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await outbox.close();
    }
  }, 90_000);
});
