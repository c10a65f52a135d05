import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@plant-store/testing";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveCommand } from "../../src/commands/serve-command.js";
import { parseConfig } from "../../src/parse-config.js";
import { type RunningStore, runServe } from "../../src/run-serve.js";
import { ServeConfigSchema } from "../../src/serve-config.js";

const adminToken = "final-statuses-admin-token";

interface Delivery {
  status: string;
  attempts: number;
  lastStatus: number | null;
  nextAttemptAt: string;
}

// In this process rather than as `serve` processes: the flag's parsing is parse-config.test.ts's, and
// what is tested here is that the setting reaches the worker's retry policy, over real HTTP.
describe("serve --final-statuses against a receiver answering 400", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-final-"));
  let receiver: Server;
  let receiverUrl: string;
  let calls = 0;

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        calls += 1;
        response.writeHead(400, { "content-type": "application/json" }).end('{"error":"refused"}');
      });
    });
    receiver.listen(0, "127.0.0.1");
    await new Promise((resolve) => receiver.once("listening", resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/plant/webhook`;
  });

  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts a store with these serve settings, adds the receiver and a plant, and answers the delivery once attempted. */
  async function deliverOnce(name: string, settings: Record<string, string>): Promise<Delivery> {
    // What `serve` runs with when given nothing else: its own defaults, --final-statuses's (none) included.
    const defaults = Object.fromEntries(
      serveCommand().options.map((option) => [option.attributeName(), option.defaultValue]),
    );
    const config = parseConfig(ServeConfigSchema, {
      ...defaults,
      db: join(dir, `${name}.db`),
      port: "0",
      adminToken,
      allowPrivateTargets: true,
      // A second attempt an hour later: a delivery that is retried stays pending for the whole test.
      retrySchedule: "0,1h",
      ...settings,
    });
    const store: RunningStore = await runServe(config, pino({ level: "silent" }));
    try {
      const admin = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${store.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        expect(response.ok, `${method} ${path}`).toBe(true);
        return (await response.json()) as { deliveries: Delivery[] };
      };
      await admin("POST", "/endpoints", { url: receiverUrl, token: "receiver-token" });
      await admin("POST", "/plants", { name: `Refused ${name}` });
      return await waitFor(async () => {
        const [delivery] = (await admin("GET", "/deliveries")).deliveries;
        return delivery && delivery.attempts > 0 ? delivery : undefined;
      });
    } finally {
      await store.stop();
    }
  }

  it("fails the delivery after one attempt with --final-statuses 400, and retries it without", async () => {
    const before = Date.now();
    const [final, retried] = await Promise.all([
      deliverOnce("final", { finalStatuses: "400,413,422" }),
      deliverOnce("default", {}),
    ]);
    expect(final).toMatchObject({ status: "failed", attempts: 1, lastStatus: 400 });
    // The default, as Standard Webhooks says: a 400 is retried on the schedule (the next attempt in an hour).
    expect(retried).toMatchObject({ status: "pending", attempts: 1, lastStatus: 400 });
    expect(Date.parse(retried.nextAttemptAt) - before).toBeGreaterThan(30 * 60_000);
    expect(calls).toBe(2);
  });
});
