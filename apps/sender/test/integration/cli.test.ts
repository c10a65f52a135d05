import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestReceiver, type TestReceiver, waitFor } from "@plant-store/testing";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson, runCli, type StoreProcess, startStore } from "../fixtures/store-process.js";

interface Delivery {
  id: number;
  status: string;
  webhookId: string;
  attempts: number;
}

describe("the built plant-store CLI against a real receiver", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-cli-"));
  const db = join(dir, "store.db");
  const adminToken = "admin-token-0123456789";
  const receiverToken = "receiver-token-abcdef";
  let receiver: TestReceiver;
  let store: StoreProcess;
  let secret: string;

  beforeAll(async () => {
    receiver = await startTestReceiver();
    store = await startStore(["--db", db, "--allow-private-targets", "--retry-schedule", "0,50ms,100ms"], {
      PLANT_STORE_ADMIN_TOKEN: adminToken,
    });
    const added = await cliJson<{ endpoint: { id: number }; secret: string }>([
      ...["endpoints", "add", `${receiver.url}/plant/webhook`, "--token", receiverToken, "--db", db],
    ]);
    secret = added.secret;
  }, 30_000);

  afterAll(async () => {
    await store?.kill();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("generates and prints a secret when none is given", () => {
    expect(secret).toMatch(/^whsec_/);
  });

  it("delivers a plant added with `plants add` while serve runs, verified by standardwebhooks", async () => {
    const { plant } = await cliJson<{ plant: { id: number; webhookId: string } }>([
      ...["plants", "add", "--name", "Monstera deliciosa", "--tag", "tropical", "--db", db],
    ]);
    const [request] = await receiver.waitForRequests(1);
    expect(
      new Webhook(secret).verify(request?.body ?? "", request?.headers as Record<string, string>),
    ).toEqual({
      id: plant.id,
      name: "Monstera deliciosa",
      tag: "tropical",
    });
    expect(request?.headers.authorization).toBe(`Bearer ${receiverToken}`);
    const line = await waitFor(() => store.lines.find((entry) => entry.msg === "delivery attempt"));
    expect(line).toMatchObject({
      webhookId: plant.webhookId,
      plantId: plant.id,
      attempt: 1,
      status: 200,
      error: null,
      outcome: "delivered",
    });
    expect(typeof line.durationMs).toBe("number");
    const { deliveries } = await cliJson<{ deliveries: Delivery[] }>([
      "deliveries",
      "list",
      "--status",
      "delivered",
      "--db",
      db,
    ]);
    expect(deliveries.map((delivery) => delivery.webhookId)).toContain(plant.webhookId);
  });

  it("retries, fails, and delivers again on `deliveries retry` and `replay`", async () => {
    receiver.respond((_request, response) => {
      response.writeHead(503).end("down");
    });
    const { plant } = await cliJson<{ plant: { id: number; webhookId: string } }>([
      ...["plants", "add", "--name", "Ficus", "--db", db],
    ]);
    const failed = await waitFor(async () => {
      const { deliveries } = await cliJson<{ deliveries: Delivery[] }>([
        "deliveries",
        "list",
        "--status",
        "failed",
        "--db",
        db,
      ]);
      return deliveries.find((delivery) => delivery.webhookId === plant.webhookId);
    });
    expect(failed.attempts).toBe(3);
    const shown = await cliJson<{
      attempts: Array<{ status: number; outcome: string; responseBody: string }>;
    }>([...["deliveries", "show", String(failed.id), "--db", db]]);
    expect(shown.attempts.map((attempt) => attempt.outcome)).toEqual(["retrying", "retrying", "failed"]);
    expect(shown.attempts[0]?.responseBody).toBe("down");

    receiver.respond((_request, response) => {
      response.writeHead(200).end();
    });
    await cliJson(["deliveries", "retry", String(failed.id), "--db", db]);
    await waitFor(async () => {
      const { delivery } = await cliJson<{ delivery: Delivery }>([
        "deliveries",
        "show",
        String(failed.id),
        "--db",
        db,
      ]);
      return delivery.status === "delivered" ? true : undefined;
    });
    const before = receiver.requests.length;
    const { queued } = await cliJson<{ queued: number }>([
      ...["replay", "--endpoint", "1", "--since", new Date(Date.now() - 3_600_000).toISOString(), "--db", db],
    ]);
    expect(queued).toBe(2);
    const requests = await receiver.waitForRequests(before + 2);
    const replayed = requests.slice(before).map((request) => request.headers["webhook-id"]);
    expect(replayed).toContain(plant.webhookId);
  });

  it("manages endpoints from the CLI", async () => {
    const disabled = await cliJson<{ endpoint: { status: string } }>([
      "endpoints",
      "disable",
      "1",
      "--db",
      db,
    ]);
    expect(disabled.endpoint.status).toBe("disabled");
    const { queued } = await cliJson<{ queued: number }>(["plants", "add", "--name", "Unsent", "--db", db]);
    expect(queued).toBe(0);
    const enabled = await cliJson<{ endpoint: { status: string } }>(["endpoints", "enable", "1", "--db", db]);
    expect(enabled.endpoint.status).toBe("active");
    const { endpoints } = await cliJson<{ endpoints: Array<Record<string, unknown>> }>([
      "endpoints",
      "list",
      "--db",
      db,
    ]);
    expect(endpoints).toHaveLength(1);
    expect(JSON.stringify(endpoints)).not.toContain(receiverToken);
    expect(JSON.stringify(endpoints)).not.toContain(secret);
    expect((await runCli(["endpoints", "remove", "99", "--db", db])).code).toBe(1);
  });

  it("never logs the admin token, the receiver token or the secret", () => {
    const output = store.output();
    expect(output).toContain("delivery attempt");
    for (const value of [adminToken, receiverToken, secret, secret.slice(6)])
      expect(output).not.toContain(value);
  });

  it("serves /healthz and /metrics with attempts by outcome and delivery latency", async () => {
    expect(await (await fetch(`${store.url}/healthz`)).json()).toEqual({ ok: true });
    const metrics = await (await fetch(`${store.url}/metrics`)).text();
    expect(metrics).toMatch(/plant_store_delivery_attempts_total\{outcome="delivered"\} [1-9]/);
    expect(metrics).toMatch(/plant_store_delivery_attempts_total\{outcome="failed"\} [1-9]/);
    expect(metrics).toMatch(/plant_store_delivery_latency_seconds_count [1-9]/);
  });

  it("exits 0 on SIGTERM", async () => {
    expect(await store.stop()).toBe(0);
    expect(store.lines.at(-1)?.msg).toBe("stopped");
  });
});

describe("plant-store configuration and help", () => {
  it("reports every invalid setting at once, naming flag and environment variable, and exits 2", async () => {
    const result = await runCli(
      ["serve", "--port", "99999", "--retry-schedule", "5s,soon", "--concurrency", "0"],
      {
        PLANT_STORE_ADMIN_TOKEN: "",
        PLANT_STORE_DB: join(tmpdir(), "never-created", "store.db"),
      },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--port (PLANT_STORE_PORT)");
    expect(result.stderr).toContain("--retry-schedule (PLANT_STORE_RETRY_SCHEDULE)");
    expect(result.stderr).toContain("--concurrency (PLANT_STORE_CONCURRENCY)");
    expect(result.stderr).toContain("--admin-token (PLANT_STORE_ADMIN_TOKEN)");
  });

  it("takes settings from PLANT_STORE_* environment variables", async () => {
    const result = await runCli(["serve"], {
      PLANT_STORE_PORT: "not-a-port",
      PLANT_STORE_ADMIN_TOKEN: "0123456789abcdef",
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--port (PLANT_STORE_PORT)");
    expect(result.stderr).not.toContain("--admin-token");
  });

  it("has --help on every command", async () => {
    const commands = [
      [],
      ["serve"],
      ["plants"],
      ["plants", "add"],
      ["plants", "list"],
      ["endpoints", "add"],
      ["endpoints", "list"],
      ["endpoints", "disable"],
      ["endpoints", "enable"],
      ["endpoints", "remove"],
      ["deliveries", "list"],
      ["deliveries", "show"],
      ["deliveries", "retry"],
      ["replay"],
    ];
    const results = await Promise.all(commands.map((command) => runCli([...command, "--help"])));
    for (const result of results) {
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("Usage: plant-store");
    }
  });
});
