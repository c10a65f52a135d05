import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { waitFor } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliver, type RunningApp, runCli, startApp } from "../fixtures/start-app.js";

const token = "tok_receiver_test_7f3a";
const rotatedToken = "tok_receiver_next_19bc";
const secret = generateWebhookSecret();
const rotatedSecret = generateWebhookSecret();
const dir = mkdtempSync(join(tmpdir(), "plant-receiver-app-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const json = async <T = Record<string, unknown>>(response: Response) => (await response.json()) as T;

describe("plant-receiver as a process (SQLite)", () => {
  let app: RunningApp;
  const file = join(dir, "nested", "receiver.db");

  beforeAll(async () => {
    app = await startApp(["--token", token, "--token", rotatedToken, "--db", file], {
      PLANT_RECEIVER_SECRETS: `${secret},${rotatedSecret}`,
    });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("logs a machine-readable listening line with the real port", () => {
    const entry = JSON.parse(app.lines.find((l) => l.includes('"listening"')) ?? "{}");
    expect(entry.url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/);
    expect(entry.url).toBe(app.url);
  });

  it("stores a delivery, answers 200, and lists it at /plants", async () => {
    const id = `msg_${crypto.randomUUID()}`;
    const response = await deliver(app.url, { token, secret, id });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ received: true, duplicate: false });
    const { plants } = await json<{ plants: Record<string, unknown>[] }>(await app.read(`/plants?limit=1`));
    expect(plants).toEqual([
      { webhookId: id, id: 1, name: "Monstera deliciosa", tag: "tropical", receivedAt: expect.any(String) },
    ]);
    const logged = app.lines
      .map((l) => JSON.parse(l))
      .find((e) => e.msg === "plant received" && e.webhookId === id);
    expect(logged).toMatchObject({ plantId: 1, webhookId: id, name: "Monstera deliciosa" });
  });

  it("accepts rotated tokens and secrets, and lists plants newest first with a limit", async () => {
    for (const [i, [t, s]] of [
      [rotatedToken, secret],
      [token, rotatedSecret],
      [rotatedToken, rotatedSecret],
    ].entries()) {
      const body = JSON.stringify({ id: 100 + i, name: `Plant ${i}` });
      expect((await deliver(app.url, { token: t as string, secret: s as string, body })).status).toBe(200);
    }
    const { plants } = await json<{ plants: { id: number; tag: unknown }[] }>(
      await app.read(`/plants?limit=2`),
    );
    expect(plants.map((p) => p.id)).toEqual([102, 101]);
    expect(plants[0]?.tag).toBeNull();
    expect((await app.read(`/plants?limit=0`)).status).toBe(400);
  });

  it("acknowledges duplicates (sequential and racing) and stores the plant once", async () => {
    const id = `msg_${crypto.randomUUID()}`;
    const body = JSON.stringify({ id: 200, name: "Duplicated fern" });
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => deliver(app.url, { token, secret, id, body })),
    );
    const bodies = await Promise.all(responses.map((r) => json<{ duplicate: boolean }>(r)));
    expect(responses.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(bodies.filter((b) => !b.duplicate)).toHaveLength(1);
    const later = await deliver(app.url, { token: rotatedToken, secret: rotatedSecret, id, body });
    expect(await json(later)).toEqual({ received: true, duplicate: true });
    const { plants } = await json<{ plants: { webhookId: string }[] }>(await app.read(`/plants?limit=100`));
    expect(plants.filter((p) => p.webhookId === id)).toHaveLength(1);
  });

  it("answers every refusal status with the spec's error body", async () => {
    const url = `${app.url}/plant/webhook`;
    const get = await fetch(url);
    expect([get.status, get.headers.get("allow"), (await json(get)).error]).toEqual([405, "POST", 405]);

    const noToken = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get("www-authenticate")).toMatch(/^Bearer realm="plant-webhook"/);
    expect((await deliver(app.url, { token: "wrong", secret })).status).toBe(401);

    const textPlain = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "text/plain" },
      body: "{}",
    });
    expect(await json(textPlain)).toEqual({ error: 415, message: "Content-Type must be application/json" });

    const big = JSON.stringify({ id: 1, name: "x".repeat(1_048_577) });
    const tooBig = await deliver(app.url, { token, secret, body: big });
    expect(await json(tooBig)).toEqual({ error: 413, message: "Request body is larger than 1048576 bytes" });

    const wrongSecret = await deliver(app.url, { token, secret: generateWebhookSecret() });
    expect(await json(wrongSecret)).toEqual({ error: 401, message: "No matching webhook signature" });
    const replay = await deliver(app.url, { token, secret, at: new Date(Date.now() - 10 * 60_000) });
    expect(replay.status).toBe(401);
    const future = await deliver(app.url, { token, secret, at: new Date(Date.now() + 10 * 60_000) });
    expect(future.status).toBe(401);

    const invalid = await deliver(app.url, { token, secret, body: JSON.stringify({ id: "x", name: "" }) });
    const invalidBody = await json<{ error: number; message: string }>(invalid);
    expect(invalidBody.error).toBe(400);
    expect(invalidBody.message).toMatch(/^Invalid NewPlant: /);
    expect(invalidBody.message).toContain("id: ");
    expect(invalidBody.message).toContain("name: ");
    expect((await deliver(app.url, { token, secret, body: "{not json" })).status).toBe(400);
  });

  it("serves /healthz and Prometheus metrics by outcome with a latency histogram", async () => {
    expect(await json(await fetch(`${app.url}/healthz`))).toEqual({ status: "ok" });
    const metrics = await (await app.read(`/metrics`)).text();
    const count = (outcome: string, status: string) =>
      Number(
        new RegExp(
          `plant_receiver_webhook_requests_total\\{outcome="${outcome}",status="${status}"\\} (\\d+)`,
        ).exec(metrics)?.[1] ?? 0,
      );
    expect(count("received", "200")).toBeGreaterThanOrEqual(5);
    expect(count("duplicate", "200")).toBeGreaterThanOrEqual(6);
    expect(count("rejected", "401")).toBeGreaterThanOrEqual(5);
    expect(count("rejected", "415")).toBe(1);
    expect(count("rejected", "413")).toBe(1);
    expect(metrics).toMatch(
      /plant_receiver_webhook_request_duration_seconds_bucket\{le="0.1",outcome="received"\} \d+/,
    );
    expect(metrics).toContain("plant_receiver_webhook_request_duration_seconds_count");
  });

  it("answers 500 when storing fails, without leaking why, and stores the redelivery once storage is back", async () => {
    const db = new Database(file);
    db.exec("ALTER TABLE plants RENAME TO plants_away");
    const id = `msg_${crypto.randomUUID()}`;
    const body = JSON.stringify({ id: 300, name: "Unlucky cactus" });
    try {
      const failed = await deliver(app.url, { token, secret, id, body });
      expect(await json(failed)).toEqual({ error: 500, message: "Internal error" });
    } finally {
      db.exec("ALTER TABLE plants_away RENAME TO plants");
      db.close();
    }
    // The child's log reaches us through a pipe, possibly after its answer did.
    await waitFor(() => (/"msg":"plant webhook failed"/.test(app.output()) ? true : undefined), 10_000);
    const retried = await deliver(app.url, { token, secret, id, body });
    expect(await json(retried)).toEqual({ received: true, duplicate: false });
  });

  it("creates its data folder 0700 and the database, -wal and -shm 0600: only this user reads them", async () => {
    expect((await deliver(app.url, { token, secret })).status).toBe(200);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    for (const path of [file, `${file}-wal`, `${file}-shm`]) {
      expect(existsSync(path), path).toBe(true);
      expect((statSync(path).mode & 0o777).toString(8), path).toBe("600");
    }
  });

  it("refuses a name or tag longer than the contract allows with 400 naming the field, and stores nothing", async () => {
    // 1 MiB names were stored: a /plants?limit=1000 over 60 of them answered 63 MB.
    for (const [field, plant] of [
      ["name", { id: 901, name: `Long-${"n".repeat(1_048_000)}` }],
      ["name", { id: 902, name: "n".repeat(201) }],
      ["tag", { id: 903, name: "Long tag", tag: "t".repeat(101) }],
    ] as const) {
      const id = `msg_${crypto.randomUUID()}`;
      const response = await deliver(app.url, { token, secret, id, body: JSON.stringify(plant) });
      expect(response.status).toBe(400);
      expect(await json(response)).toEqual({
        error: 400,
        message: `Invalid NewPlant: ${field}: Too big: expected string to have <=${field === "name" ? 200 : 100} characters`,
      });
    }
    const { plants } = await json<{ plants: { id: number }[] }>(await app.read("/plants?limit=1000"));
    expect(plants.filter((plant) => plant.id >= 901 && plant.id <= 903)).toEqual([]);
  });

  it("logs at most 200 UTF-16 units of a plant's name, and stores the name in full", async () => {
    // The longest name the contract allows, in characters that take two UTF-16 units each.
    const name = "🌿".repeat(200);
    const id = `msg_${crypto.randomUUID()}`;
    expect(
      (await deliver(app.url, { token, secret, id, body: JSON.stringify({ id: 900, name }) })).status,
    ).toBe(200);
    await waitFor(
      () => app.lines.find((line) => line.includes(id) && line.includes('"plant received"')),
      10_000,
    );
    const line = app.lines.find((l) => l.includes(id) && l.includes('"plant received"')) ?? "";
    expect(JSON.parse(line).name).toBe(`${"🌿".repeat(100)}… (400 UTF-16 units in all)`);
    const { plants } = await json<{ plants: { name: string }[] }>(await app.read("/plants?limit=1"));
    expect(plants[0]?.name).toBe(name);
  });

  it("never writes tokens, secrets or signatures to its logs", async () => {
    const output = app.output();
    expect(output.length).toBeGreaterThan(0);
    for (const value of [
      token,
      rotatedToken,
      secret,
      rotatedSecret,
      secret.slice(6),
      rotatedSecret.slice(6),
    ]) {
      expect(output).not.toContain(value);
    }
    expect(output).not.toMatch(/v1,[A-Za-z0-9+/]{43}=/);
  });

  it("exits 0 on SIGTERM and, restarted on the same file, still knows handled ids", async () => {
    const id = `msg_${crypto.randomUUID()}`;
    const body = JSON.stringify({ id: 400, name: "Survivor" });
    expect(await json(await deliver(app.url, { token, secret, id, body }))).toMatchObject({
      duplicate: false,
    });
    expect(await app.stop()).toBe(0);
    expect(app.output()).toContain('"msg":"stopped"');

    app = await startApp(["--token", token, "--secret", secret, "--db", file]);
    expect(await json(await deliver(app.url, { token, secret, id, body }))).toEqual({
      received: true,
      duplicate: true,
    });
    const { plants } = await json<{ plants: { webhookId: string }[] }>(await app.read(`/plants?limit=1000`));
    expect(plants.filter((p) => p.webhookId === id)).toHaveLength(1);
  });
});

describe("plant-receiver configuration", () => {
  it("exits 2 listing every problem with its flag and environment variable", async () => {
    const { code, stderr, stdout } = await runCli(["--port", "99999", "--secret", "not-a-secret"], {
      PLANT_RECEIVER_TOKENS: "",
    });
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain("--port (PLANT_RECEIVER_PORT)");
    expect(stderr).toContain("--token (PLANT_RECEIVER_TOKENS): at least one bearer token is required");
    expect(stderr).toContain("--secret (PLANT_RECEIVER_SECRETS)");
    expect(stderr).not.toContain("not-a-secret");
  });

  it("reports a bad choice, unknown options and stray arguments together with every invalid setting", async () => {
    const { code, stderr, stdout } = await runCli([
      "--log-level",
      "bogus",
      "--port",
      "99999",
      "--body-timeout",
      "x",
      "--tokens=tok_typo_value",
      "stray-value",
      "--secret",
      secret,
      "--token",
      token,
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    for (const problem of [
      "--log-level (PLANT_RECEIVER_LOG_LEVEL): must be one of fatal, error, warn, info, debug, trace, silent",
      "--port (PLANT_RECEIVER_PORT): must be 0 to 65535",
      "--body-timeout (PLANT_RECEIVER_BODY_TIMEOUT_MS): must be a number of milliseconds",
      "--tokens: unknown option",
      "1 unexpected argument",
    ]) {
      expect(stderr).toContain(problem);
    }
    // Names only: values after an unknown option or a stray argument may be secrets.
    for (const value of ["tok_typo_value", "stray-value", "bogus", token, secret]) {
      expect(stderr).not.toContain(value);
    }
  });

  it("checks a log level from the environment with the rest, and a flag missing its value", async () => {
    const { code, stderr } = await runCli(["--token", token, "--secret"], {
      PLANT_RECEIVER_LOG_LEVEL: "loud",
    });
    expect(code).toBe(2);
    expect(stderr).toContain("--log-level (PLANT_RECEIVER_LOG_LEVEL): must be one of");
    expect(stderr).toContain("--secret: needs a value");
    expect(stderr).toContain("--secret (PLANT_RECEIVER_SECRETS): at least one signing secret is required");
  });

  it("documents every flag and its environment variable in --help", async () => {
    const { code, stdout } = await runCli(["--help"]);
    expect(code).toBe(0);
    for (const flag of ["--port", "--host", "--token", "--secret", "--db", "--log-level"]) {
      expect(stdout).toContain(flag);
    }
    for (const env of ["PORT", "HOST", "TOKENS", "SECRETS", "DB", "LOG_LEVEL"]) {
      expect(stdout).toContain(`PLANT_RECEIVER_${env}`);
    }
    for (const flag of ["--read-token", "--max-event-streams", "--max-event-streams-per-client"]) {
      expect(stdout).toContain(flag);
    }
    // --db says what :memory: costs: replay protection does not survive a restart.
    expect(stdout.replace(/\s+/g, " ")).toContain("--db :memory: forgets the webhook ids it has seen");
  });

  it("runs with :memory: storage, warns at start-up that it forgets ids, and exits 0 on SIGINT", async () => {
    const app = await startApp(["--token", token, "--secret", secret, "--db", ":memory:"]);
    try {
      const warning = app.lines
        .map((line) => JSON.parse(line) as { level: number; msg: string })
        .find((entry) => entry.msg.startsWith("--db :memory: forgets the webhook ids"));
      // pino's warn level; logged before "listening", so already in the lines.
      expect(warning?.level).toBe(40);
      expect(warning?.msg).toContain("replayed");
      expect((await deliver(app.url, { token, secret })).status).toBe(200);
    } finally {
      expect(await app.stop("SIGINT")).toBe(0);
    }
  });
});
