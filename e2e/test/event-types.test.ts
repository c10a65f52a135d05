import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createDeliveryClient,
  createRetryPolicy,
  createSsrfGuard,
  createWorker,
  InvalidPayloadError,
  type Worker,
} from "@plant-store/sender";
import { createSqliteOutbox, type SqliteOutbox } from "@plant-store/sender/sqlite";
import { type ThreeWebhooksEvents, threeWebhooksDocument, waitFor } from "@plant-store/testing";
import { createWebhookCatalog, generateWebhookSecret, WEBHOOK_EVENT_TYPE_HEADER } from "@plant-store/types";
import Database from "better-sqlite3";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

interface Received {
  eventType: string | undefined;
  payload: unknown;
}

/** A receiver nobody here wrote the checks of: the reference `standardwebhooks` library verifies each POST. */
async function startReceiver(secret: string) {
  const verifier = new Webhook(secret);
  const received: Received[] = [];
  const refused: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      try {
        const payload = verifier.verify(body, request.headers as Record<string, string>);
        const type = (request.headers as IncomingHttpHeaders)[WEBHOOK_EVENT_TYPE_HEADER];
        received.push({ eventType: Array.isArray(type) ? type.join(",") : type, payload });
        response.writeHead(204).end();
      } catch (error) {
        refused.push((error as Error).message);
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { secret, received, refused, server, url: `http://127.0.0.1:${port}/hooks` };
}

// Generality, proven with a document that is not the Plant Store's: three webhooks, four endpoints.
describe("event types from a three-webhook OpenAPI document, end to end over SQLite", () => {
  const dir = mkdtempSync(join(tmpdir(), "event-types-"));
  const file = join(dir, "outbox.db");
  const catalog = createWebhookCatalog<ThreeWebhooksEvents>(threeWebhooksDocument);
  let outbox: SqliteOutbox<ThreeWebhooksEvents>;
  let worker: Worker;
  const servers: Server[] = [];

  beforeAll(() => {
    outbox = createSqliteOutbox<ThreeWebhooksEvents>(file, { catalog });
  });

  afterAll(async () => {
    await worker?.stop();
    await outbox?.close();
    for (const server of servers) server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("sends each endpoint only the types it subscribed to, all of them to one with no list, each verified by standardwebhooks", async () => {
    const subscriptions = {
      created: ["orderCreated"],
      shipped: ["orderShipped"],
      customers: ["customer*"],
      everything: null,
    } as const;
    const receivers = Object.fromEntries(
      await Promise.all(
        Object.entries(subscriptions).map(async ([name, eventTypes]) => {
          const receiver = await startReceiver(generateWebhookSecret());
          servers.push(receiver.server);
          await outbox.ensureEndpoint({
            url: receiver.url,
            token: `token-${name}`,
            secrets: [receiver.secret],
            eventTypes: eventTypes === null ? null : [...eventTypes],
          });
          return [name, receiver] as const;
        }),
      ),
    );

    const created = { id: 7, total: 1250, currency: "EUR" };
    const shipped = { orderId: 7, carrier: "post" as const, trackingCode: "RR123" };
    const customer = { customerId: "c-1", name: "Ada" };
    const queued = [
      await outbox.enqueue({ eventType: "orderCreated", payload: created }),
      await outbox.enqueue({ eventType: "orderShipped", payload: shipped }),
      await outbox.enqueue({ eventType: "customerUpdated", payload: customer }),
    ];
    // Fan-out at enqueue: one delivery per subscribed endpoint (1 + 1 + 1 + 3 for the endpoint without a list).
    expect(queued.map((message) => message.deliveries)).toEqual([2, 2, 2]);

    worker = createWorker({
      outbox,
      client: createDeliveryClient({ timeoutMs: 5_000 }),
      policy: createRetryPolicy({ schedule: [0, 200] }),
      ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
    });
    worker.start();
    const total = () => Object.values(receivers).reduce((sum, receiver) => sum + receiver.received.length, 0);
    await waitFor(() => (total() >= 6 ? true : undefined), 15_000);
    // Every delivery recorded as delivered: none is left to send, so no seventh POST can follow.
    const settled = await waitFor(async () => {
      const all = await outbox.listDeliveries();
      return all.every((delivery) => delivery.status === "delivered") ? all : undefined;
    }, 15_000);
    expect(settled).toHaveLength(6);

    const seen = (name: string) =>
      receivers[name]?.received.toSorted((a, b) => String(a.eventType).localeCompare(String(b.eventType)));
    expect(seen("created")).toEqual([{ eventType: "orderCreated", payload: created }]);
    expect(seen("shipped")).toEqual([{ eventType: "orderShipped", payload: shipped }]);
    expect(seen("customers")).toEqual([{ eventType: "customerUpdated", payload: customer }]);
    expect(seen("everything")).toEqual([
      { eventType: "customerUpdated", payload: customer },
      { eventType: "orderCreated", payload: created },
      { eventType: "orderShipped", payload: shipped },
    ]);
    for (const receiver of Object.values(receivers)) expect(receiver.refused).toEqual([]);
    const delivered = await outbox.listDeliveries({ eventType: "orderShipped" });
    expect(delivered.map((delivery) => [delivery.eventType, delivery.status])).toEqual([
      ["orderShipped", "delivered"],
      ["orderShipped", "delivered"],
    ]);
  });

  it("refuses at enqueue a payload its webhook's schema refuses, naming the field, with nothing written", async () => {
    const count = () => {
      const db = new Database(file, { readonly: true });
      try {
        return db
          .prepare(
            "SELECT (SELECT count(*) FROM webhook_messages) AS messages, (SELECT count(*) FROM webhook_deliveries) AS deliveries",
          )
          .get();
      } finally {
        db.close();
      }
    };
    const before = count();
    const refused = await outbox
      .enqueue({
        eventType: "orderShipped",
        // A carrier the document does not list, as a caller without TypeScript could send it.
        payload: { orderId: 8, carrier: "pigeon" } as unknown as ThreeWebhooksEvents["orderShipped"],
      })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidPayloadError);
    expect(refused).toMatchObject({
      code: "ERR_INVALID_PAYLOAD",
      eventType: "orderShipped",
      issues: [{ path: "carrier" }],
    });
    expect(() =>
      outbox.enqueueSync({
        eventType: "orderCreated",
        payload: { id: 9 } as ThreeWebhooksEvents["orderCreated"],
      }),
    ).toThrow(/total/);
    expect(count()).toEqual(before);
  });
});
