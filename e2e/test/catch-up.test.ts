import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readAppEvent } from "@plant-store/app-shell";
import {
  type AppLogLine,
  getFreeFixedPort,
  type RunningApp,
  resolveAppCli,
  spawnApp,
  waitFor,
} from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, describe, expect, it } from "vitest";

const PLANTS = 50;
const adminToken = "admin-token-catch-up-0123456789";
const readToken = "read-token-catch-up-0123456789";

/**
 * Issue 40's "done when": a receiver that was down longer than the store's retries catches up by
 * itself. The store (a retry schedule of two quick attempts) exhausts its retries for 50 plants while
 * the receiver is stopped; the receiver starts again with `--catch-up-from` and handles each of them
 * exactly once, counted by `webhook-id` at its handler (`plant.stored`), each verified; a plant pushed
 * once the receiver is up is pulled too, and handled once.
 */
describe("a receiver that was down catches up from the store's events API", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-catch-up-"));
  const apps: RunningApp[] = [];

  afterAll(async () => {
    for (const app of apps) await app.stop(5_000);
    rmSync(dir, { recursive: true, force: true });
  });

  const api = async (base: string, method: string, path: string, body?: unknown, token = adminToken) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: JSON answers of the documented APIs.
    return { status: response.status, body: (await response.json()) as any };
  };

  it("handles all 50 plants whose retries ran out exactly once, and a pushed and pulled copy once", async () => {
    const token = "endpoint-token-catch-up-0123";
    const secret = generateWebhookSecret();
    const port = await getFreeFixedPort();
    const store = await spawnApp("store", resolveAppCli("plant-store", import.meta.url), [
      ...["serve", "--port", "0", "--db", join(dir, "store.db"), "--admin-token", adminToken],
      ...["--allow-private-targets", "--retry-schedule", "0,100ms"],
    ]);
    apps.push(store);
    const added = await api(store.url, "POST", "/endpoints", {
      url: `http://127.0.0.1:${port}/plant/webhook`,
      token,
      secrets: [secret],
    });
    expect(added.status).toBe(201);
    const endpointId = added.body.endpoint.id as number;

    // The receiver is down: every delivery fails, twice, and is given up.
    const webhookIds: string[] = [];
    for (let n = 1; n <= PLANTS; n++) {
      const plant = await api(store.url, "POST", "/plants", { name: `Catch-up ${n}` });
      expect(plant.status).toBe(201);
      webhookIds.push(plant.body.plant.webhookId);
    }
    expect(new Set(webhookIds).size).toBe(PLANTS);
    await waitFor(async () => {
      const failed = await api(
        store.url,
        "GET",
        `/deliveries?status=failed&endpointId=${endpointId}&limit=1000`,
      );
      return failed.body.deliveries.length === PLANTS ? true : undefined;
    }, 60_000);

    // The receiver starts again, catching up every 200 ms.
    const handled = new Map<string, number>();
    const pulled = new Map<string, string[]>();
    const pushed = new Map<string, string[]>();
    const receiver = await spawnApp("receiver", resolveAppCli("plant-receiver", import.meta.url), [
      ...["--port", String(port), "--db", join(dir, "receiver.db"), "--token", token, "--secret", secret],
      ...["--read-token", readToken, "--catch-up-from", `${store.url}/endpoints/${endpointId}/events`],
      ...["--catch-up-token", token, "--catch-up-every", "200ms"],
    ]);
    apps.push(receiver);
    receiver.onLine((line: AppLogLine) => {
      const event = readAppEvent(line);
      if (event?.event === "plant.stored")
        handled.set(event.webhookId, (handled.get(event.webhookId) ?? 0) + 1);
      if (event?.event === "webhook.handled" && event.webhookId !== undefined)
        pushed.set(event.webhookId, [...(pushed.get(event.webhookId) ?? []), event.outcome]);
      if (event?.event === "catch-up.event")
        pulled.set(event.webhookId, [...(pulled.get(event.webhookId) ?? []), event.outcome]);
    });
    await waitFor(() => (webhookIds.every((id) => handled.has(id)) ? true : undefined), 60_000);

    // Pushed now that the receiver is up, and pulled by the next run: handled once, whichever came first.
    const late = await api(store.url, "POST", "/plants", { name: "Pushed and pulled" });
    const lateId = late.body.plant.webhookId as string;
    await waitFor(() => (pulled.get(lateId) && pushed.get(lateId) ? true : undefined), 60_000);

    for (const id of webhookIds) {
      expect(handled.get(id), id).toBe(1);
      expect(pulled.get(id)?.[0], id).toBe("received");
    }
    expect(handled.get(lateId)).toBe(1);
    expect([...(pulled.get(lateId) ?? []), ...(pushed.get(lateId) ?? [])].sort()).toEqual([
      "duplicate",
      "received",
    ]);
    // None of the 50 was pushed: the receiver was down for all their attempts.
    expect(webhookIds.filter((id) => pushed.has(id))).toEqual([]);
    expect([...handled.keys()].sort()).toEqual([...webhookIds, lateId].sort());

    // Its state on the receiver's page.
    const state = await api(receiver.url, "GET", "/catch-up", undefined, readToken);
    expect(state.body).toMatchObject({
      enabled: true,
      from: `${store.url}/endpoints/${endpointId}/events`,
      refused: 0,
      lastError: null,
      expired: null,
    });
    expect(state.body.received + state.body.duplicates).toBe(PLANTS + 1);
  });
});
