import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestReceiver, type TestReceiver, waitFor } from "@plant-store/testing";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson, runCli } from "../fixtures/cli-in-process.js";
import { runCli as runCliProcess, type StoreProcess, startStore } from "../fixtures/store-process.js";

interface Delivery {
  id: number;
  status: string;
  webhookId: string;
  eventType: string | null;
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
  let rotatedSecret = "";
  const rotatedToken = "receiver-token-rotated-987";
  const apiKey = "gateway-key-4d7f0c2a9e";

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
      messageId: expect.any(Number),
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

  it("adds a plant once however often `plants add --idempotency-key` runs, and refuses the key for another plant", async () => {
    const args = ["plants", "add", "--name", "Once only", "--idempotency-key", "cli-key-1", "--db", db];
    const first = await cliJson<{ plant: { id: number; webhookId: string }; queued: number }>(args);
    const again = await cliJson<{ plant: { id: number; webhookId: string }; queued: number }>(args);
    expect(again).toEqual(first);
    expect(first.queued).toBe(1);
    const text = await runCli(args);
    expect(text.stdout).toContain("already added with this idempotency key");
    const other = await runCli([
      "plants",
      "add",
      "--name",
      "Another",
      "--idempotency-key",
      "cli-key-1",
      "--db",
      db,
    ]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain("already used with a different plant");
    await receiver.waitForRequests(1);
    await waitFor(() =>
      receiver.requests.some((request) => request.headers["webhook-id"] === first.plant.webhookId)
        ? true
        : undefined,
    );
    const { plants } = await cliJson<{ plants: Array<{ name: string }> }>(["plants", "list", "--db", db]);
    expect(plants.filter((plant) => plant.name === "Once only")).toHaveLength(1);
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
    // Every plant added in the last hour (by this file's earlier tests too) goes to the endpoint again.
    const { plants } = await cliJson<{ plants: unknown[] }>(["plants", "list", "--db", db]);
    expect(queued).toBe(plants.length);
    // Every replay, not the first two: the next tests take the receiver's next request for their own.
    const requests = await receiver.waitForRequests(before + queued);
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

  it("changes an endpoint's event types from the CLI, shows them, and lists deliveries by type", async () => {
    const subscribed = await cliJson<{ endpoint: { eventTypes: string[] | null } }>([
      ...[
        "endpoints",
        "set-event-types",
        "1",
        "--event-type",
        "newPlant",
        "--event-type",
        "new*",
        "--db",
        db,
      ],
    ]);
    expect(subscribed.endpoint.eventTypes).toEqual(["newPlant", "new*"]);
    const text = await runCli(["endpoints", "list", "--db", db]);
    expect(text.stdout).toContain("\tnewPlant, new*");
    for (const [args, problem] of [
      [["--event-type", "orderCreated"], "--event-type (PLANT_STORE_EVENT_TYPE) (value 1): matches none"],
      [
        ["--event-type", "newPlant", "--all-event-types"],
        "give --event-type (repeatable) or --all-event-types",
      ],
      [[], "give --event-type (repeatable) or --all-event-types"],
    ] as const) {
      const refused = await runCli(["endpoints", "set-event-types", "1", ...args, "--db", db]);
      expect(refused.code, args.join(" ")).toBe(2);
      expect(refused.stderr).toContain(problem);
    }
    const all = await cliJson<{ endpoint: { eventTypes: string[] | null } }>([
      ...["endpoints", "set-event-types", "1", "--all-event-types", "--db", db],
    ]);
    expect(all.endpoint.eventTypes).toBeNull();

    const { deliveries } = await cliJson<{ deliveries: Delivery[] }>([
      ...["deliveries", "list", "--event-type", "newPlant", "--db", db],
    ]);
    expect(deliveries.length).toBeGreaterThan(0);
    expect(deliveries.every((delivery) => delivery.eventType === "newPlant")).toBe(true);
    const unknown = await runCli(["deliveries", "list", "--event-type", "orderCreated", "--db", db]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      "--event-type (PLANT_STORE_EVENT_TYPE): must be one of this API's event types (newPlant, endpoint.failing, endpoint.disabled, endpoint.recovered, delivery.failed)",
    );
  });

  it("rotates the secret and the token from the CLI; the next delivery verifies with the new secret", async () => {
    const rotated = await cliJson<{ endpoint: { secretCount: number }; secret: string }>([
      ...["endpoints", "rotate-secret", "1", "--db", db],
    ]);
    rotatedSecret = rotated.secret;
    expect(rotatedSecret).toMatch(/^whsec_/);
    expect(rotatedSecret).not.toBe(secret);
    expect(rotated.endpoint.secretCount).toBe(2);
    const deliver = async (name: string) => {
      const { plant } = await cliJson<{ plant: { id: number; webhookId: string } }>([
        "plants",
        "add",
        "--name",
        name,
        "--db",
        db,
      ]);
      // This plant's request, by its webhook id: not whatever the receiver happens to get next.
      const request = await waitFor(() =>
        receiver.requests.find((candidate) => candidate.headers["webhook-id"] === plant.webhookId),
      );
      return { plant, request, headers: request.headers as Record<string, string> };
    };
    // During the rotation both secrets sign, so the receiver may switch at any time.
    const during = await deliver("Signed twice");
    expect(new Webhook(rotatedSecret).verify(during.request?.body ?? "", during.headers)).toEqual({
      id: during.plant.id,
      name: "Signed twice",
    });
    expect(() => new Webhook(secret).verify(during.request?.body ?? "", during.headers)).not.toThrow();

    // Finishing it: only the new secret, and a new token.
    const kept = await cliJson<{ endpoint: { secretCount: number } }>([
      ...["endpoints", "set-secrets", "1", "--secret", rotatedSecret, "--db", db],
    ]);
    expect(kept.endpoint.secretCount).toBe(1);
    await cliJson(["endpoints", "set-token", "1", "--token", rotatedToken, "--db", db]);
    const after = await deliver("Signed anew");
    expect(new Webhook(rotatedSecret).verify(after.request?.body ?? "", after.headers)).toEqual({
      id: after.plant.id,
      name: "Signed anew",
    });
    expect(() => new Webhook(secret).verify(after.request?.body ?? "", after.headers)).toThrow();
    expect(after.headers.authorization).toBe(`Bearer ${rotatedToken}`);
  });

  it("refuses malformed rotation input and unknown endpoints without echoing secrets", async () => {
    const bad = await runCli(["endpoints", "set-secrets", "1", "--secret", "whsec_nope", "--db", db]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--secret (PLANT_STORE_SECRET)");
    expect(bad.stderr).not.toContain("whsec_nope");
    expect((await runCli(["endpoints", "set-token", "99", "--token", "t", "--db", db])).code).toBe(1);
    expect((await runCli(["endpoints", "rotate-secret", "99", "--db", db])).code).toBe(1);
    // Several secrets from the environment, comma-separated.
    const both = await runCli(["endpoints", "set-secrets", "1", "--db", db, "--json"], {
      PLANT_STORE_SECRET: `${rotatedSecret},${secret}`,
    });
    expect(JSON.parse(both.stdout).endpoint.secretCount).toBe(2);
    await cliJson(["endpoints", "set-secrets", "1", "--secret", rotatedSecret, "--db", db]);
  });

  it("takes every command flag from its PLANT_STORE_* variable too", async () => {
    const added = await runCli(["plants", "add", "--db", db, "--json"], {
      PLANT_STORE_NAME: "Named by the environment",
      PLANT_STORE_TAG: "env",
    });
    expect(added.code).toBe(0);
    const { plant } = JSON.parse(added.stdout) as {
      plant: { name: string; tag: string; webhookId: string; createdAt: string };
    };
    expect(plant).toMatchObject({ name: "Named by the environment", tag: "env" });
    await receiver.waitForRequests(1);
    await waitFor(async () => {
      const { deliveries } = await cliJson<{ deliveries: Delivery[] }>(["deliveries", "list", "--db", db]);
      return deliveries.find((d) => d.webhookId === plant.webhookId)?.status === "delivered"
        ? true
        : undefined;
    });
    const listed = await runCli(["deliveries", "list", "--db", db, "--json"], {
      PLANT_STORE_STATUS: "delivered",
      PLANT_STORE_LIMIT: "2",
    });
    const { deliveries } = JSON.parse(listed.stdout) as { deliveries: Delivery[] };
    expect(deliveries).toHaveLength(2);
    expect(deliveries.every((delivery) => delivery.status === "delivered")).toBe(true);
    expect(deliveries[0]?.webhookId).toBe(plant.webhookId);
    const replayed = await runCli(["replay", "--db", db, "--json"], {
      PLANT_STORE_ENDPOINT: "1",
      PLANT_STORE_SINCE: plant.createdAt,
    });
    expect(JSON.parse(replayed.stdout)).toEqual({ queued: 1 });
    const wrong = await runCli(["replay", "--db", db], {
      PLANT_STORE_ENDPOINT: "first",
      PLANT_STORE_SINCE: "now",
    });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("--endpoint (PLANT_STORE_ENDPOINT)");
    expect(wrong.stderr).toContain("--since (PLANT_STORE_SINCE)");
  });

  it("reads PLANT_STORE_JSON by value: false and 0 print text, true prints JSON, anything else is refused", async () => {
    for (const off of ["false", "0", ""]) {
      const result = await runCli(["endpoints", "list", "--db", db], { PLANT_STORE_JSON: off });
      expect(result.code, off).toBe(0);
      expect(result.stdout.startsWith("#1\t"), off).toBe(true);
    }
    const on = await runCli(["endpoints", "list", "--db", db], { PLANT_STORE_JSON: "true" });
    expect(JSON.parse(on.stdout).endpoints).toHaveLength(1);
    const before = (await cliJson<{ plants: unknown[] }>(["plants", "list", "--db", db])).plants.length;
    const unclear = await runCli(["plants", "add", "--name", "Not added", "--db", db], {
      PLANT_STORE_JSON: "maybe",
    });
    expect(unclear.code).toBe(2);
    expect(unclear.stderr).toContain("--json (PLANT_STORE_JSON)");
    expect((await cliJson<{ plants: unknown[] }>(["plants", "list", "--db", db])).plants).toHaveLength(
      before,
    );
  });

  it("manages subscribers from the CLI: the token printed once works on the running store until rotated, and removal takes the subscriber's endpoints", async () => {
    const me = (token: string) =>
      fetch(`${store.url}/me`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
    const added = await runCli(["subscribers", "add", "--name", "Ann's ferns", "--db", db]);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain("will not be shown again");
    const [, id, token] = /#(\d+) .*\nToken: (pss_\S+)/.exec(added.stdout) ?? [];
    expect(await me(token as string)).toBe(200);
    const owned = await cliJson<{ endpoint: { id: number; subscriberId: number; verified: boolean } }>([
      ...["endpoints", "add", `${receiver.url}/ann`, "--token", "ann-token", "--subscriber", id as string],
      ...["--db", db],
    ]);
    expect(owned.endpoint).toMatchObject({ subscriberId: Number(id), verified: false });
    const { subscribers } = await cliJson<{ subscribers: Array<Record<string, unknown>> }>([
      ...["subscribers", "list", "--db", db],
    ]);
    expect(subscribers).toEqual([{ id: Number(id), name: "Ann's ferns", createdAt: expect.any(String) }]);
    const rotated = await cliJson<{ token: string }>([
      "subscribers",
      "rotate-token",
      id as string,
      "--db",
      db,
    ]);
    expect(await me(token as string)).toBe(401);
    expect(await me(rotated.token)).toBe(200);
    expect((await runCli(["subscribers", "remove", id as string, "--db", db])).code).toBe(0);
    expect(await me(rotated.token)).toBe(401);
    const { endpoints } = await cliJson<{ endpoints: Array<{ id: number }> }>([
      "endpoints",
      "list",
      "--db",
      db,
    ]);
    expect(endpoints.map((endpoint) => endpoint.id)).not.toContain(owned.endpoint.id);
    // A name the store refuses is input to fix: exit 2, saying which flag and why, and nothing added.
    const refused = await runCli(["subscribers", "add", "--name", "   ", "--db", db]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--name (PLANT_STORE_NAME)");
    expect(store.output()).not.toContain(rotated.token);
  });

  it("adds an endpoint with --filter, --header and --signature-headers: it is sent only what the filter is true for, with the header, under svix-* names; set-filter, set-headers and set-signature-headers change them", async () => {
    const path = "/filtered/webhook";
    const added = await cliJson<{ endpoint: { id: number } & Record<string, unknown>; secret: string }>([
      ...["endpoints", "add", `${receiver.url}${path}`, "--token", receiverToken],
      ...["--filter", 'payload.tag == "tropical"', "--header", `x-api-key: ${apiKey}`],
      ...["--signature-headers", "svix", "--db", db],
    ]);
    const id = String(added.endpoint.id);
    expect(added.endpoint).toMatchObject({
      filter: 'payload.tag == "tropical"',
      filteredCount: 0,
      headers: { "x-api-key": "********" },
      signatureHeaders: "svix",
    });
    await cliJson(["plants", "add", "--name", "Saguaro", "--tag", "desert", "--db", db]);
    const { plant } = await cliJson<{ plant: { id: number; webhookId: string } }>([
      ...["plants", "add", "--name", "Bird of paradise", "--tag", "tropical", "--db", db],
    ]);
    const request = await waitFor(() => receiver.requests.find((candidate) => candidate.path === path));
    expect(request.headers["x-api-key"]).toBe(apiKey);
    expect(request.headers["webhook-signature"]).toBeUndefined();
    // The svix names carry the Standard Webhooks signature itself: read under the standard names, it verifies.
    const asStandard = {
      "webhook-id": String(request.headers["svix-id"]),
      "webhook-timestamp": String(request.headers["svix-timestamp"]),
      "webhook-signature": String(request.headers["svix-signature"]),
    };
    expect(new Webhook(added.secret).verify(request.body, asStandard)).toMatchObject({ id: plant.id });
    expect(asStandard["webhook-id"]).toBe(plant.webhookId);
    // The desert plant was queued first and excluded at enqueue: never sent, counted on the endpoint.
    expect(receiver.requests.filter((candidate) => candidate.path === path)).toHaveLength(1);
    const listed = await runCli(["endpoints", "list", "--db", db]);
    expect(listed.stdout).toContain('filter payload.tag == "tropical" (1 excluded)');
    expect(listed.stdout).not.toContain(apiKey);

    for (const [args, problem] of [
      [["set-filter", id, "--filter", "payload.tag =="], "filter: "],
      [
        ["set-filter", id],
        "give --filter <cel> (a CEL expression over { eventType, payload }) or --no-filter",
      ],
      [["set-headers", id, "--header", "Host: example.com"], "Host is written by the sender or HTTP itself"],
      [["set-headers", id, "--header", "x-api-key"], "--header (PLANT_STORE_HEADER): must be name:value"],
    ] as const) {
      const refused = await runCli(["endpoints", ...args, "--db", db]);
      expect(refused.code, args.join(" ")).toBe(2);
      expect(refused.stderr).toContain(problem);
    }
    // commander checks the choices: a usage error, exit 1 like every other it reports.
    const style = await runCli([
      "endpoints",
      "set-signature-headers",
      id,
      "--signature-headers",
      "stripe",
      "--db",
      db,
    ]);
    expect(style.code).toBe(1);
    expect(style.stderr).toContain("standard, svix");
    const changed = [
      await cliJson<{ endpoint: Record<string, unknown> }>([
        "endpoints",
        "set-filter",
        id,
        "--no-filter",
        "--db",
        db,
      ]),
      await cliJson<{ endpoint: Record<string, unknown> }>([
        "endpoints",
        "set-headers",
        id,
        "--no-header",
        "--db",
        db,
      ]),
      await cliJson<{ endpoint: Record<string, unknown> }>([
        ...["endpoints", "set-signature-headers", id, "--signature-headers", "standard", "--db", db],
      ]),
    ].map(({ endpoint }) => endpoint);
    expect(changed[0]).toMatchObject({ filter: null, filteredCount: 1 });
    expect(changed[1]).toMatchObject({ headers: {} });
    expect(changed[2]).toMatchObject({ filter: null, headers: {}, signatureHeaders: "standard" });
    const text = await runCli(["endpoints", "set-headers", id, "--header", "x-team: ferns", "--db", db]);
    expect(text.stdout).toBe(`Endpoint #${id} is sent x-team with every attempt\n`);
    expect((await runCli(["endpoints", "remove", id, "--db", db])).code).toBe(0);
  });

  it("never logs the admin token, the receiver token, the secret or a static header's value", () => {
    const output = store.output();
    expect(output).toContain("delivery attempt");
    for (const value of [
      adminToken,
      receiverToken,
      secret,
      secret.slice(6),
      rotatedSecret,
      rotatedToken,
      apiKey,
    ])
      expect(output).not.toContain(value);
  });

  it("serves /healthz to anyone and /metrics with the admin token: attempts by outcome and delivery latency", async () => {
    expect(await (await fetch(`${store.url}/healthz`)).json()).toEqual({ ok: true });
    expect((await fetch(`${store.url}/metrics`)).status).toBe(401);
    const metrics = await (
      await fetch(`${store.url}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } })
    ).text();
    expect(metrics).toMatch(/plant_store_delivery_attempts_total\{outcome="delivered"\} [1-9]/);
    expect(metrics).toMatch(/plant_store_delivery_attempts_total\{outcome="failed"\} [1-9]/);
    expect(metrics).toMatch(/plant_store_delivery_latency_seconds_count [1-9]/);
  });

  it("exits 0 on SIGTERM", async () => {
    expect(await store.stop()).toBe(0);
    expect(store.lines.at(-1)?.msg).toBe("stopped");
  });
});

describe("plant-store serve on SQLite with a long --poll-interval", () => {
  it("still delivers a plant another process adds at once: the poll interval is honoured, not needed for new work", async () => {
    const dir = mkdtempSync(join(tmpdir(), "plant-store-poll-"));
    const db = join(dir, "store.db");
    const receiver = await startTestReceiver();
    const store = await startStore(["--db", db, "--allow-private-targets", "--poll-interval", "1h"], {
      PLANT_STORE_ADMIN_TOKEN: "admin-token-0123456789",
    });
    try {
      await cliJson(["endpoints", "add", `${receiver.url}/plant/webhook`, "--token", "tok", "--db", db]);
      const { plant } = await cliJson<{ plant: { webhookId: string } }>([
        ...["plants", "add", "--name", "Noticed without a poll", "--db", db],
      ]);
      const [request] = await receiver.waitForRequests(1);
      expect(request?.headers["webhook-id"]).toBe(plant.webhookId);
      expect(await store.stop()).toBe(0);
    } finally {
      await store.kill();
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("plant-store configuration and help", () => {
  it("reports every invalid setting at once, naming flag and environment variable, and exits 2", async () => {
    const result = await runCliProcess(
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
    const result = await runCliProcess(["serve"], {
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
      ["endpoints", "rotate-secret"],
      ["endpoints", "set-secrets"],
      ["endpoints", "set-token"],
      ["endpoints", "set-url"],
      ["endpoints", "set-event-types"],
      ["endpoints", "re-encrypt"],
      ["deliveries", "list"],
      ["deliveries", "show"],
      ["deliveries", "retry"],
      ["replay"],
    ];
    for (const command of commands) {
      const result = await runCli([...command, "--help"]);
      expect(result.code, command.join(" ")).toBe(0);
      expect(result.stdout, command.join(" ")).toContain("Usage: plant-store");
    }
  });
});

// The tests above run the CLI's main in this process; these start the bin (dist/cli.js) itself, which
// exits with what main answers.
describe("the plant-store bin", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-bin-"));
  const db = join(dir, "store.db");

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("prints help on stdout and exits 0", async () => {
    for (const args of [["--help"], ["plants", "add", "--help"]]) {
      const result = await runCliProcess(args);
      expect(result.code, args.join(" ")).toBe(0);
      expect(result.stdout, args.join(" ")).toContain("Usage: plant-store");
      expect(result.stderr, args.join(" ")).toBe("");
    }
  });

  it("runs a command, printing its JSON on stdout, and exits 0", async () => {
    const result = await runCliProcess(["plants", "add", "--name", "From the bin", "--db", db, "--json"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(result.stdout)).toMatchObject({ plant: { name: "From the bin" }, queued: 0 });
  });

  it("exits 2 on input to fix and 1 on an unknown endpoint, saying why on stderr", async () => {
    const refused = await runCliProcess(["plants", "add", "--name", "", "--db", db]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--name (PLANT_STORE_NAME)");
    const missing = await runCliProcess(["endpoints", "remove", "99", "--db", db]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).not.toBe("");
    expect(missing.stdout).toBe("");
  });

  it("exits 1 on a usage error commander reports", async () => {
    const result = await runCliProcess([
      ...["plants", "add", "--name", "Never added"],
      ...["--db", db, "--no-such-flag"],
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("unknown option '--no-such-flag'");
    expect(result.stdout).toBe("");
  });
});
