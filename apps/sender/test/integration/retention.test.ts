import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestReceiver, type TestReceiver, waitFor } from "@plant-store/testing";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliJson, runCli } from "../fixtures/cli-in-process.js";
import { type StoreProcess, startStore } from "../fixtures/store-process.js";

interface Listed {
  deliveries: Array<{ id: number; status: string; webhookId: string; endpointId: number }>;
}

const adminToken = "admin-token-0123456789";
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("serve --retention", () => {
  let dir: string;
  let db: string;
  let receiver: TestReceiver;
  let store: StoreProcess | undefined;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "plant-store-retention-"));
    db = join(dir, "store.db");
    receiver = await startTestReceiver();
    receiver.respond((request, response) => {
      response.writeHead(request.path === "/down" ? 503 : 200).end();
    });
  });

  afterEach(async () => {
    await store?.kill();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function subscribe(path: string): Promise<number> {
    const added = await cliJson<{ endpoint: { id: number } }>([
      ...["endpoints", "add", `${receiver.url}${path}`, "--token", "receiver-token", "--db", db],
    ]);
    return added.endpoint.id;
  }

  async function postPlant(name: string): Promise<string> {
    const response = await fetch(`${store?.url}/plants`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { plant: { webhookId: string } }).plant.webhookId;
  }

  it("deletes a delivered plant's delivery, attempts and payload after 2s, and keeps one still retrying", async () => {
    await subscribe("/up");
    const down = await subscribe("/down");
    store = await startStore(
      ["--db", db, "--allow-private-targets", "--retention", "2s", "--retry-schedule", "0,1h"],
      { PLANT_STORE_ADMIN_TOKEN: adminToken },
    );
    const webhookId = await postPlant("Kept for two seconds");
    // The store's own events, not a CLI poll: a CLI command (a process, as it was) can take longer than
    // the 2 s retention on a loaded machine, and the delivered row would be gone before any poll saw it.
    const first = await waitFor(() => {
      const attempts = (store?.lines ?? []).filter((line) => line.event === "delivery.attempted");
      return attempts.length >= 2 ? attempts : undefined;
    });
    expect(first.map((attempt) => attempt.outcome).sort()).toEqual(["delivered", "retrying"]);
    expect(first.every((attempt) => attempt.webhookId === webhookId)).toBe(true);
    const delivered = { id: first.find((attempt) => attempt.outcome === "delivered")?.deliveryId };
    const swept = await waitFor(
      () => store?.lines.find((line) => line.msg === "retention sweep" && line.deliveries === 1),
      15_000,
    );
    // The plant's message stays: its delivery to /down is retrying (whose short run raises no alert).
    expect(swept).toMatchObject({ deliveries: 1, attempts: 1, messages: 0 });
    const { deliveries } = await cliJson<Listed>(["deliveries", "list", "--db", db]);
    expect(deliveries).toEqual([expect.objectContaining({ endpointId: down, status: "pending", webhookId })]);
    const shown = await runCli(["deliveries", "show", String(delivered?.id), "--db", db]);
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain(`No delivery ${delivered?.id}`);
    // The payload stays while a delivery of it is pending; the plant itself is the store's and stays.
    const file = new Database(db, { readonly: true });
    try {
      expect(file.prepare("SELECT count(*) FROM webhook_messages").pluck().get()).toBe(1);
      expect(file.prepare("SELECT count(*) FROM webhook_attempts").pluck().get()).toBe(1);
    } finally {
      file.close();
    }
    const { plants } = await cliJson<{ plants: unknown[] }>(["plants", "list", "--db", db]);
    expect(plants).toHaveLength(1);
  }, 60_000);

  it("keeps the queue's tables flat under a steady load", async () => {
    await subscribe("/up");
    store = await startStore(["--db", db, "--allow-private-targets", "--retention", "1s"], {
      PLANT_STORE_ADMIN_TOKEN: adminToken,
    });
    const count = () => {
      const file = new Database(db, { readonly: true });
      try {
        return {
          deliveries: file.prepare("SELECT count(*) FROM webhook_deliveries").pluck().get() as number,
          attempts: file.prepare("SELECT count(*) FROM webhook_attempts").pluck().get() as number,
          messages: file.prepare("SELECT count(*) FROM webhook_messages").pluck().get() as number,
        };
      } finally {
        file.close();
      }
    };
    // 20 plants a second for 6 s: 120 plants, while only about 1.5 s of them (retention plus the sweep
    // interval) may be kept at any time.
    const seen: number[] = [];
    for (let second = 0; second < 6; second++) {
      for (let index = 0; index < 20; index++) {
        await postPlant(`Steady ${second}.${index}`);
        await pause(50);
      }
      if (second >= 2) seen.push(count().deliveries);
    }
    const largest = Math.max(...seen);
    expect(largest).toBeLessThan(60);
    // Once the load stops, everything delivered goes.
    await waitFor(() => {
      const now = count();
      return now.deliveries === 0 && now.attempts === 0 && now.messages === 0 ? now : undefined;
    }, 15_000);
    const { plants } = await cliJson<{ plants: unknown[] }>(["plants", "list", "--db", db]);
    expect(plants).toHaveLength(120);
  }, 90_000);
});
