import { mkdtempSync, rmSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestReceiver, waitFor } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { cliJson, type StoreProcess, startStore } from "../fixtures/store-process.js";

describe("a serve process killed with SIGKILL mid-delivery", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-crash-"));
  const stores: StoreProcess[] = [];

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.kill()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("loses nothing: a restarted serve takes over the expired claims and delivers every plant", async () => {
    const db = join(dir, "store.db");
    const secret = generateWebhookSecret();
    const receiver = await startTestReceiver();
    const held: ServerResponse[] = [];
    // While the first process runs, the receiver takes requests and never answers them.
    receiver.respond((_request, response) => {
      held.push(response);
    });
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
      const serveArgs = ["--db", db, "--allow-private-targets", "--lease", "3s", "--timeout", "1s"];
      const env = { PLANT_STORE_ADMIN_TOKEN: "admin-token-0123456789" };
      const first = await startStore(serveArgs, env);
      stores.push(first);
      const added: Array<{ id: number; webhookId: string }> = [];
      for (const name of ["Aloe", "Basil", "Cactus", "Dill"]) {
        const { plant } = await cliJson<{ plant: { id: number; webhookId: string } }>([
          "plants",
          "add",
          "--name",
          name,
          "--db",
          db,
        ]);
        added.push(plant);
      }
      // Two per endpoint are in flight (the default per-endpoint concurrency) when the process dies.
      await receiver.waitForRequests(2);
      await first.kill();

      receiver.respond((_request, response) => {
        response.writeHead(200).end();
      });
      const second = await startStore(serveArgs, env);
      stores.push(second);
      const delivered = await waitFor(async () => {
        const { deliveries } = await cliJson<{ deliveries: Array<{ webhookId: string; status: string }> }>([
          ...["deliveries", "list", "--status", "delivered", "--db", db],
        ]);
        return deliveries.length === added.length ? deliveries : undefined;
        // Each look is a CLI process, and the killed process's leases must run out first: a loaded
        // machine (a full test run beside other work) once needed more than 20 s.
      }, 45_000);
      expect(delivered.map((delivery) => delivery.webhookId).sort()).toEqual(
        added.map((plant) => plant.webhookId).sort(),
      );
      const answered = receiver.requests.slice(held.length);
      for (const request of answered) {
        expect(() =>
          new Webhook(secret).verify(request.body, request.headers as Record<string, string>),
        ).not.toThrow();
      }
      expect(new Set(answered.map((request) => request.headers["webhook-id"]))).toEqual(
        new Set(added.map((plant) => plant.webhookId)),
      );
      expect(await second.stop()).toBe(0);
    } finally {
      await receiver.close();
    }
  }, 90_000);
});
