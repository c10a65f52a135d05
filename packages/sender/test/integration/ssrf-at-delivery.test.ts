import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestReceiver, type TestReceiver, waitFor } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterEach, describe, expect, it } from "vitest";
import type { AttemptEvent } from "../../src/attempt-event.js";
import { createDeliveryClient } from "../../src/delivery/create-delivery-client.js";
import { createSsrfGuard, type ResolvedTarget } from "../../src/delivery/create-ssrf-guard.js";
import type { Outbox } from "../../src/outbox.js";
import { createRetryPolicy } from "../../src/retry/create-retry-policy.js";
import { createSqliteOutbox } from "../../src/sqlite.js";
import { createWorker, type Worker } from "../../src/worker/create-worker.js";
import { enqueuePlant } from "../fixtures/enqueue-plant.js";

// A name that does not exist in real DNS: only the injected resolver gives it an address.
const HOST = "hooks.plant-store.invalid";
// A public address that is never connected to: the guard's answer is only used for the check.
const PUBLIC = "93.184.216.34";

const v4 = (address: string): ResolvedTarget => ({ address, family: address.includes(":") ? 6 : 4 });

describe("the SSRF guard at delivery time (DNS can change after an endpoint is added)", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp(allowPrivateTargets: boolean) {
    const dir = mkdtempSync(join(tmpdir(), "sender-ssrf-"));
    const outbox: Outbox = createSqliteOutbox(join(dir, "outbox.db"));
    const receiver: TestReceiver = await startTestReceiver();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    cleanups.push(() => outbox.close());
    cleanups.push(() => receiver.close());
    const port = new URL(receiver.url).port;
    let answer = [v4(PUBLIC)];
    const lookups: string[] = [];
    const guard = createSsrfGuard({
      allowPrivateTargets,
      resolve: async (hostname) => {
        lookups.push(hostname);
        return answer;
      },
    });
    const url = `http://${HOST}:${port}/plant/webhook`;
    // What an admin API does when the endpoint is added: the name resolves to a public address then.
    expect(await guard.check(url)).toEqual(v4(PUBLIC));
    await outbox.addEndpoint({ url, token: "tok", secrets: [generateWebhookSecret()] });
    const events: AttemptEvent[] = [];
    const worker: Worker = createWorker({
      outbox,
      ssrfGuard: guard,
      policy: createRetryPolicy({ schedule: "0,20ms", jitter: 0 }),
      pollIntervalMs: 25,
      onAttempt: (event) => events.push(event),
    });
    cleanups.push(() => worker.stop());
    return {
      outbox,
      receiver,
      worker,
      events,
      lookups,
      rebind(addresses: string[]) {
        answer = addresses.map(v4);
      },
    };
  }

  const PRIVATE = [
    "127.0.0.1",
    "::1",
    "10.0.0.1",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "::ffff:127.0.0.1",
    "0.0.0.0",
  ];

  it("refuses every private address the name resolves to by then, before any connection is made", async () => {
    const pipe = await setUp(false);
    pipe.worker.start();
    for (const address of PRIVATE) {
      pipe.rebind([address]);
      const before = pipe.events.length;
      const { deliveries } = await enqueuePlant(pipe.outbox, { name: `Rebound to ${address}` });
      const [delivery] = deliveries;
      await waitUntil(() => pipe.events.filter((event) => event.deliveryId === delivery?.id).length >= 2);
      const attempts = pipe.events.slice(before).filter((event) => event.deliveryId === delivery?.id);
      expect(attempts.every((event) => event.error === "ERR_SSRF_BLOCKED" && event.status === null)).toBe(
        true,
      );
      expect((await pipe.outbox.getDelivery(delivery?.id ?? 0))?.status).toBe("failed");
    }
    // The guard looked the name up again at every attempt, and no request ever arrived anywhere.
    expect(pipe.lookups.length).toBeGreaterThanOrEqual(1 + 2 * PRIVATE.length);
    expect(pipe.receiver.requests).toHaveLength(0);
  });

  it("refuses a name with one public and one private address", async () => {
    const pipe = await setUp(false);
    pipe.rebind([PUBLIC, "10.1.2.3"]);
    pipe.worker.start();
    const { deliveries } = await enqueuePlant(pipe.outbox, { name: "Split horizon" });
    await waitUntil(() => pipe.events.some((event) => event.deliveryId === deliveries[0]?.id));
    expect(pipe.events[0]?.error).toBe("ERR_SSRF_BLOCKED");
    expect(pipe.receiver.requests).toHaveLength(0);
  });

  it("with allowPrivateTargets delivers to loopback, connecting to the address the guard checked", async () => {
    const pipe = await setUp(true);
    pipe.rebind(["127.0.0.1"]);
    pipe.worker.start();
    const { plant } = await enqueuePlant(pipe.outbox, { name: "Allowed locally" });
    await pipe.receiver.waitForRequests(1);
    // HOST has no real DNS record: the request arrived only because the connection was pinned.
    expect(pipe.receiver.requests[0]?.headers["webhook-id"]).toBe(plant.webhookId);
    expect(pipe.receiver.requests[0]?.headers.host).toBe(`${HOST}:${new URL(pipe.receiver.url).port}`);
  });
});

describe("name resolution within the attempt's time", () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp(resolve: (hostname: string) => Promise<ResolvedTarget[]>, timeoutMs: number) {
    const dir = mkdtempSync(join(tmpdir(), "sender-dns-"));
    const outbox: Outbox = createSqliteOutbox(join(dir, "outbox.db"));
    const receiver: TestReceiver = await startTestReceiver();
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    cleanups.push(() => outbox.close());
    cleanups.push(() => receiver.close());
    const events: AttemptEvent[] = [];
    const worker: Worker = createWorker({
      outbox,
      ssrfGuard: createSsrfGuard({ allowPrivateTargets: true, resolve }),
      client: createDeliveryClient({ timeoutMs }),
      policy: createRetryPolicy({ schedule: "0,1h", jitter: 0 }),
      pollIntervalMs: 25,
      onAttempt: (event) => events.push(event),
    });
    cleanups.push(() => worker.stop());
    return { outbox, receiver, worker, events, port: new URL(receiver.url).port };
  }

  it("fails an attempt whose name never resolves with ERR_DNS_TIMEOUT, while other endpoints are delivered", async () => {
    const pipe = await setUp(() => new Promise(() => undefined), 300);
    const hanging = await pipe.outbox.addEndpoint({
      url: `http://${HOST}:${pipe.port}/plant/webhook`,
      token: "tok",
      secrets: [generateWebhookSecret()],
    });
    await pipe.outbox.addEndpoint({
      url: `http://127.0.0.1:${pipe.port}/plant/webhook`,
      token: "tok",
      secrets: [generateWebhookSecret()],
    });
    pipe.worker.start();
    await enqueuePlant(pipe.outbox, { name: "Hanging DNS" });
    await pipe.receiver.waitForRequests(1);
    await waitUntil(() => pipe.events.some((event) => event.endpointId === hanging.id));
    const failed = pipe.events.find((event) => event.endpointId === hanging.id);
    expect(failed).toMatchObject({ status: null, error: "ERR_DNS_TIMEOUT", outcome: "retrying" });
    expect(pipe.receiver.requests).toHaveLength(1);
  });

  it("takes a slow lookup's time out of the request, so the attempt keeps to its budget", async () => {
    const pipe = await setUp(async () => {
      // A real wait: the lookup's real time must come out of the client's real timeout budget, which
      // runs on the sockets' own timers (no fake clock reaches them).
      await new Promise((resolve) => setTimeout(resolve, 250));
      return [v4("127.0.0.1")];
    }, 400);
    // Answers after 300 ms: within the client's timeout, but not within what the lookup left of it.
    pipe.receiver.respond((_request, response) => {
      setTimeout(() => response.writeHead(200).end(), 300);
    });
    await pipe.outbox.addEndpoint({
      url: `http://${HOST}:${pipe.port}/plant/webhook`,
      token: "tok",
      secrets: [generateWebhookSecret()],
    });
    pipe.worker.start();
    await enqueuePlant(pipe.outbox, { name: "Slow DNS" });
    await waitUntil(() => pipe.events.length > 0);
    expect(pipe.events[0]).toMatchObject({ status: null, error: "ETIMEDOUT", outcome: "retrying" });
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  await waitFor(() => (condition() ? true : undefined), timeoutMs, 10);
}
