import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestReceiver, waitFor } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { expectDocumented } from "../fixtures/expect-documented.js";
import { type StoreProcess, startStore } from "../fixtures/store-process.js";

const adminToken = "alerts-admin-token-0123456789";

describe("serve: alerts as operational webhooks", () => {
  it("sends endpoint.failing then endpoint.disabled to an endpoint.* subscriber, endpoint.recovered once enabled and answering, none to an endpoint without a list", async () => {
    const dir = mkdtempSync(join(tmpdir(), "plant-store-alerts-"));
    const receiver = await startTestReceiver();
    const secret = generateWebhookSecret();
    let failing = true;
    receiver.respond((request, response) => {
      response.writeHead(failing && request.path === "/plant/webhook" ? 503 : 200).end();
    });
    let store: StoreProcess | undefined;
    try {
      // Retried every 50 ms and disabled after 300 ms of failures: the whole run lasts well under a second.
      store = await startStore(
        [
          "--db",
          join(dir, "store.db"),
          "--allow-private-targets",
          "--retry-schedule",
          "0,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms",
          "--disable-after",
          "300ms",
          "--poll-interval",
          "100ms",
        ],
        { PLANT_STORE_ADMIN_TOKEN: adminToken },
      );
      const url = store.url;
      const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
        const response = await fetch(`${url}${path}`, {
          method,
          headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        expect(response.ok, `${method} ${path}: ${response.status}`).toBe(true);
        return (await response.json()) as T;
      };
      const add = (path: string, eventTypes?: string[]) =>
        admin<{ endpoint: { id: number } }>("POST", "/endpoints", {
          url: `${receiver.url}${path}`,
          token: "receiver-token",
          secret,
          ...(eventTypes ? { eventTypes } : {}),
        });
      const plants = (await add("/plant/webhook")).endpoint;
      await add("/all");
      await add("/ops", ["endpoint.*"]);
      await admin("POST", "/plants", { name: "Fern" });

      const verified = (path: string) =>
        receiver.requests
          .filter((request) => request.path === path)
          .map((request) => ({
            type: request.headers["webhook-event-type"],
            payload: new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as {
              type: string;
              endpointId: number;
            },
          }));
      const alerts = await waitFor(() => {
        const told = verified("/ops");
        return told.length >= 2 ? told : undefined;
      }, 10_000);
      expect(alerts.map((alert) => [alert.type, alert.payload.type, alert.payload.endpointId])).toEqual([
        ["endpoint.failing", "endpoint.failing", plants.id],
        ["endpoint.disabled", "endpoint.disabled", plants.id],
      ]);

      failing = false;
      await admin("POST", `/endpoints/${plants.id}/enable`);
      await admin("POST", "/plants", { name: "Moss" });
      const recovered = await waitFor(() => verified("/ops")[2], 10_000);
      expect(recovered.payload).toMatchObject({ type: "endpoint.recovered", endpointId: plants.id });

      // The endpoint without a list took both plants and not one alert.
      expect(
        receiver.requests.filter((r) => r.path === "/all").map((r) => r.headers["webhook-event-type"]),
      ).toEqual(["newPlant", "newPlant"]);
      expect(receiver.requests.filter((r) => r.path === "/ops")).toHaveLength(3);
      // Each alert is a typed event in the log and a count in the metrics.
      const logged = await waitFor(() => {
        const types = store?.lines.filter((line) => line.event === "alert.raised").map((line) => line.type);
        return types && types.length >= 4 ? types : undefined;
      });
      expect(logged).toEqual([
        "endpoint.failing",
        "endpoint.disabled",
        "delivery.failed",
        "endpoint.recovered",
      ]);
      // And listed for the page, as documented.
      const listed = await admin<{ alerts: Array<{ alert: { type: string } }> }>("GET", "/alerts");
      expectDocumented("get", "/alerts", 200, listed);
      expect(listed.alerts.map((entry) => entry.alert.type)).toEqual([...logged].reverse());
      const metrics = await (
        await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } })
      ).text();
      expect(metrics).toContain('plant_store_alerts_total{type="endpoint.disabled"} 1');
      expect(metrics).toContain('plant_store_alerts_total{type="endpoint.recovered"} 1');
    } finally {
      await store?.stop();
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
