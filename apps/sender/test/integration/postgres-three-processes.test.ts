import { startPostgres, startTestReceiver, type TestPostgres, waitFor } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson, type StoreProcess, startStore } from "../fixtures/store-process.js";

describe("three serve processes sharing one PostgreSQL", () => {
  let postgres: TestPostgres;
  const stores: StoreProcess[] = [];

  beforeAll(async () => {
    postgres = await startPostgres();
  }, 60_000);

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.kill()));
    await postgres?.stop();
  });

  it("deliver every plant exactly once, never attempting one webhook id twice at the same time", async () => {
    const db = await postgres.createDatabase();
    const secret = generateWebhookSecret();
    const receiver = await startTestReceiver();
    const seen: string[] = [];
    receiver.respond((request, response) => {
      // Every fifth webhook id fails its first attempt only, so retries and claims interleave across
      // processes. (Failing every fifth *request* let one delivery be unlucky on all four attempts
      // when load reordered requests, exhausting it to `failed`, and the test then waited in vain.)
      const id = String(request.headers["webhook-id"]);
      const first = !seen.includes(id);
      if (first) seen.push(id);
      const status = first && seen.length % 5 === 0 ? 500 : 200;
      setTimeout(() => response.writeHead(status).end(), 10);
    });
    const adminToken = "admin-token-0123456789";
    try {
      await cliJson([
        "endpoints",
        "add",
        `${receiver.url}/plant/webhook`,
        "--token",
        "tok",
        "--secret",
        secret,
        "--db",
        db,
      ]);
      const args = [
        "--db",
        db,
        "--allow-private-targets",
        "--retry-schedule",
        "0,50ms,100ms,200ms",
        "--concurrency",
        "4",
      ];
      stores.push(
        ...(await Promise.all(
          [0, 1, 2].map(() => startStore(args, { PLANT_STORE_ADMIN_TOKEN: adminToken })),
        )),
      );
      const plants = 45;
      const webhookIds: string[] = [];
      for (let index = 0; index < plants; index++) {
        const store = stores[index % stores.length] as StoreProcess;
        const response = await fetch(`${store.url}/plants`, {
          method: "POST",
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          body: JSON.stringify({ name: `Shared plant ${index}` }),
        });
        expect(response.status).toBe(201);
        const { plant } = (await response.json()) as { plant: { webhookId: string } };
        webhookIds.push(plant.webhookId);
      }
      const delivered = await waitFor(async () => {
        const { deliveries } = await cliJson<{ deliveries: Array<{ webhookId: string }> }>([
          ...["deliveries", "list", "--status", "delivered", "--limit", "1000", "--db", db],
        ]);
        return deliveries.length === plants ? deliveries : undefined;
      }, 30_000);
      expect(new Set(delivered.map((delivery) => delivery.webhookId))).toEqual(new Set(webhookIds));
      expect(receiver.maxConcurrencyPerId).toBe(1);
      for (const request of receiver.requests) {
        expect(() =>
          new Webhook(secret).verify(request.body, request.headers as Record<string, string>),
        ).not.toThrow();
      }
      const attempts = stores.flatMap((store) =>
        store.lines.filter((line) => line.msg === "delivery attempt"),
      );
      expect(attempts).toHaveLength(receiver.requests.length);
      const deliveredLines = attempts.filter((line) => line.outcome === "delivered");
      expect(deliveredLines).toHaveLength(plants);
      expect(new Set(deliveredLines.map((line) => line.webhookId)).size).toBe(plants);
      // Every process wakes on NOTIFY and competes, so the work is shared, not done by one.
      expect(new Set(attempts.map((line) => line.pid)).size).toBeGreaterThan(1);
      const codes = await Promise.all(stores.map((store) => store.stop()));
      expect(codes).toEqual([0, 0, 0]);
    } finally {
      await receiver.close();
    }
  }, 90_000);
});
