import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestReceiver, waitFor } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, describe, expect, it } from "vitest";
import { cliJson } from "../fixtures/cli-in-process.js";
import { runCli, type StoreProcess, startStore } from "../fixtures/store-process.js";

describe("plant-store serve and endpoints on private addresses", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-ssrf-"));
  const stores: StoreProcess[] = [];

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.kill()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses at delivery time, by default, an endpoint the CLI stored on loopback (by number and by name), and sends nothing", async () => {
    const db = join(dir, "default.db");
    const receiver = await startTestReceiver();
    try {
      const port = new URL(receiver.url).port;
      for (const host of ["127.0.0.1", "localhost", "[::ffff:127.0.0.1]"]) {
        await cliJson([
          ...["endpoints", "add", `http://${host}:${port}/plant/webhook`, "--token", "tok"],
          ...["--secret", generateWebhookSecret(), "--db", db],
        ]);
      }
      const store = await startStore(["--db", db, "--retry-schedule", "0,50ms"], {
        PLANT_STORE_ADMIN_TOKEN: "admin-token-0123456789",
      });
      stores.push(store);
      await cliJson(["plants", "add", "--name", "Should stay home", "--db", db]);
      const failed = await waitFor(async () => {
        const { deliveries } = await cliJson<{ deliveries: Array<{ id: number }> }>([
          "deliveries",
          "list",
          "--status",
          "failed",
          "--db",
          db,
        ]);
        return deliveries.length === 3 ? deliveries : undefined;
      }, 20_000);
      for (const delivery of failed) {
        const shown = await cliJson<{ attempts: Array<{ error: string | null; status: number | null }> }>([
          ...["deliveries", "show", String(delivery.id), "--db", db],
        ]);
        expect(shown.attempts.length).toBeGreaterThan(0);
        expect(
          shown.attempts.every((attempt) => attempt.error === "ERR_SSRF_BLOCKED" && attempt.status === null),
        ).toBe(true);
      }
      expect(receiver.requests).toHaveLength(0);
      expect(await store.stop()).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it("delivers to loopback with --allow-private-targets", async () => {
    const db = join(dir, "allowed.db");
    const receiver = await startTestReceiver();
    try {
      await cliJson([
        ...["endpoints", "add", `${receiver.url.replace("127.0.0.1", "localhost")}/plant/webhook`],
        ...["--token", "tok", "--secret", generateWebhookSecret(), "--db", db],
      ]);
      const store = await startStore(["--db", db, "--allow-private-targets"], {
        PLANT_STORE_ADMIN_TOKEN: "admin-token-0123456789",
      });
      stores.push(store);
      const { plant } = await cliJson<{ plant: { webhookId: string } }>([
        "plants",
        "add",
        "--name",
        "Local",
        "--db",
        db,
      ]);
      const [request] = await receiver.waitForRequests(1);
      expect(request?.headers["webhook-id"]).toBe(plant.webhookId);
      expect(await store.stop()).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it("keeps the guard on when PLANT_STORE_ALLOW_PRIVATE_TARGETS is false, 0 or empty, and turns it off only for true", async () => {
    // Four stores, each on a file and a port of its own, started side by side: each waits on its own start.
    const cases = [
      ["false", 400],
      ["0", 400],
      ["", 400],
      ["true", 201],
    ] as const;
    const settled = await Promise.allSettled(
      cases.map(async ([value, expected]) => {
        const store = await startStore(["--db", join(dir, `env-${value || "empty"}.db`)], {
          PLANT_STORE_ADMIN_TOKEN: "admin-token-0123456789",
          PLANT_STORE_ALLOW_PRIVATE_TARGETS: value,
        });
        stores.push(store);
        const response = await fetch(`${store.url}/endpoints`, {
          method: "POST",
          headers: { authorization: "Bearer admin-token-0123456789", "content-type": "application/json" },
          body: JSON.stringify({ url: "http://127.0.0.1:9/plant/webhook", token: "tok" }),
        });
        expect(response.status, `PLANT_STORE_ALLOW_PRIVATE_TARGETS=${value}`).toBe(expected);
        expect(await store.stop(), `PLANT_STORE_ALLOW_PRIVATE_TARGETS=${value}`).toBe(0);
      }),
    );
    for (const result of settled) if (result.status === "rejected") throw result.reason;
  });

  it("refuses to start when PLANT_STORE_ALLOW_PRIVATE_TARGETS is neither on nor off", async () => {
    const result = await runCli(["serve", "--db", join(dir, "unclear.db"), "--port", "0"], {
      PLANT_STORE_ADMIN_TOKEN: "admin-token-0123456789",
      PLANT_STORE_ALLOW_PRIVATE_TARGETS: "off",
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--allow-private-targets (PLANT_STORE_ALLOW_PRIVATE_TARGETS)");
  });
});
