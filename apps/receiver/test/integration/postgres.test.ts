import { endConnections, startPostgres, type TestPostgres } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { deliver, type RunningApp, runCli, startApp } from "../fixtures/start-app.js";

const token = "pg-token";
const secret = generateWebhookSecret();
// The database user has a password, so that the test below can tell if it ever leaks.
const password = `pg_pw_${crypto.randomUUID()}`;

describe("plant-receiver on PostgreSQL", () => {
  let server: TestPostgres;
  let url: string;
  const apps: RunningApp[] = [];
  /** Instances stopped along the way: their output is checked too. */
  const stopped: RunningApp[] = [];
  beforeAll(async () => {
    server = await startPostgres({ password });
    url = await server.createDatabase("plant_receiver_app");
    // Two instances on one database, started together: table creation must not race.
    apps.push(
      ...(await Promise.all([
        startApp(["--token", token, "--secret", secret, "--db", url]),
        startApp(["--token", token, "--secret", secret], { PLANT_RECEIVER_DB: url }),
      ])),
    );
  });
  afterAll(async () => {
    for (const app of apps) await app.stop();
    await server?.stop();
  });

  it("stores plants in PostgreSQL and lists them from either instance", async () => {
    const [a, b] = apps as [RunningApp, RunningApp];
    const id = `msg_${crypto.randomUUID()}`;
    const body = JSON.stringify({ id: 9007199254740991, name: "Big id", tag: "edge" });
    expect((await deliver(a.url, { token, secret, id, body })).status).toBe(200);
    const { plants } = (await (await b.read(`/plants?limit=1`)).json()) as { plants: unknown[] };
    expect(plants).toEqual([
      { webhookId: id, id: 9007199254740991, name: "Big id", tag: "edge", receivedAt: expect.any(String) },
    ]);
  });

  it("answers 400 naming the field to a NUL (U+0000) in name or tag, on every redelivery, and stores nothing", async () => {
    const [a] = apps as [RunningApp];
    for (const [field, plant] of [
      ["name", { id: 800, name: "Nul\u0000fern" }],
      ["tag", { id: 801, name: "Nul tag", tag: "\u0000" }],
    ] as const) {
      const id = `msg_${crypto.randomUUID()}`;
      const body = JSON.stringify(plant);
      // PostgreSQL cannot store NUL: this was a 500 on every retry of the sender's 28-hour schedule.
      for (let attempt = 0; attempt < 2; attempt++) {
        const response = await deliver(a.url, { token, secret, id, body });
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual({
          error: 400,
          message: `Invalid NewPlant: ${field}: must not contain the NUL character (U+0000)`,
        });
      }
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT 1 FROM plants WHERE plant_id IN (800, 801)");
      expect(rows).toEqual([]);
    } finally {
      await client.end();
    }
  });

  it("answers 400, not 500, when PostgreSQL refuses a plant's values, and stores the plant once they fit", async () => {
    const [a] = apps as [RunningApp];
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const id = `msg_${crypto.randomUUID()}`;
    const body = JSON.stringify({ id: 802, name: "Narrowed", tag: "a-tag-longer-than-eight" });
    try {
      // An operator narrowed a column: PostgreSQL raises a data exception (22001) for a longer value,
      // which fails the same way however often the sender retries.
      await admin.query("ALTER TABLE plants ALTER COLUMN tag TYPE varchar(8)");
      for (let attempt = 0; attempt < 2; attempt++) {
        const response = await deliver(a.url, { token, secret, id, body });
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual({
          error: 400,
          message:
            "Invalid NewPlant: a value cannot be stored (value too long for type character varying(8))",
        });
      }
      const metrics = await (await a.read("/metrics")).text();
      expect(metrics).toMatch(
        /plant_receiver_webhook_requests_total\{outcome="rejected",status="400"\} [1-9]/,
      );
      await admin.query("ALTER TABLE plants ALTER COLUMN tag TYPE text");
      // Not remembered as handled: once the value fits, the same delivery is stored.
      const response = await deliver(a.url, { token, secret, id, body });
      expect(await response.json()).toEqual({ received: true, duplicate: false });
    } finally {
      await admin.query("ALTER TABLE plants ALTER COLUMN tag TYPE text");
      await admin.end();
    }
  });

  it("stores one row when both instances receive the same id at the same moment", async () => {
    for (let round = 0; round < 5; round++) {
      const id = `msg_${crypto.randomUUID()}`;
      const body = JSON.stringify({ id: 500 + round, name: `Raced ${round}` });
      const responses = await Promise.all(
        [...apps, ...apps].map((app) => deliver(app.url, { token, secret, id, body })),
      );
      const bodies = (await Promise.all(responses.map((r) => r.json()))) as { duplicate: boolean }[];
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(bodies.filter((b) => !b.duplicate)).toHaveLength(1);
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM plants WHERE name LIKE 'Raced %'",
      );
      expect(rows[0]?.n).toBe(5);
    } finally {
      await client.end();
    }
  });

  it("still recognises handled ids after an instance is killed with SIGKILL and restarted", async () => {
    const id = `msg_${crypto.randomUUID()}`;
    const body = JSON.stringify({ id: 700, name: "Crash-proof cactus" });
    const killed = apps[0] as RunningApp;
    expect(await (await deliver(killed.url, { token, secret, id, body })).json()).toEqual({
      received: true,
      duplicate: false,
    });
    expect(await killed.stop("SIGKILL")).toBeNull();
    stopped.push(killed);
    const restarted = await startApp(["--token", token, "--secret", secret, "--db", url]);
    apps[0] = restarted;
    for (const app of apps) {
      expect(await (await deliver(app.url, { token, secret, id, body })).json()).toEqual({
        received: true,
        duplicate: true,
      });
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM plants WHERE webhook_id = $1",
        [id],
      );
      expect(rows[0]?.n).toBe(1);
    } finally {
      await client.end();
    }
  });

  it("answers 500 promptly while the plants table is locked, and stores the redelivery once it is free", async () => {
    const app = await startApp([
      "--token",
      token,
      "--secret",
      secret,
      "--db",
      url,
      "--db-busy-timeout",
      "300",
    ]);
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    try {
      const id = `msg_${crypto.randomUUID()}`;
      const body = JSON.stringify({ id: 800, name: "Locked-out lily" });
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE plants IN ACCESS EXCLUSIVE MODE");
      const failed = await deliver(app.url, { token, secret, id, body });
      expect(failed.status).toBe(500);
      expect(await failed.json()).toEqual({ error: 500, message: "Internal error" });
      const line = await vi.waitFor(() => {
        const found = app.lines
          .map((l) => JSON.parse(l) as { msg: string; webhookId?: string; err?: { message?: string } })
          .find((entry) => entry.msg === "plant webhook failed" && entry.webhookId === id);
        if (found === undefined) throw new Error(`no failure logged for ${id}`);
        return found;
      });
      expect(line.err?.message).toMatch(/statement timeout/);
      await locker.query("ROLLBACK");

      expect(await (await deliver(app.url, { token, secret, id, body })).json()).toEqual({
        received: true,
        duplicate: false,
      });
      expect(await (await deliver(apps[1]?.url ?? "", { token, secret, id, body })).json()).toEqual({
        received: true,
        duplicate: true,
      });
      const { rows } = await locker.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM plants WHERE webhook_id = $1",
        [id],
      );
      expect(rows[0]?.n).toBe(1);
    } finally {
      await locker.end();
      await app.stop();
      stopped.push(app);
    }
  });

  it("survives PostgreSQL ending its connections (a restart, a failover) and keeps receiving", async () => {
    const app = await startApp(["--token", token, "--secret", secret, "--db", url]);
    stopped.push(app);
    try {
      const body = JSON.stringify({ id: 900, name: "Before the restart" });
      expect((await deliver(app.url, { token, secret, id: `msg_${crypto.randomUUID()}`, body })).status).toBe(
        200,
      );
      // What a server restart or a failover does to every open connection, idle pooled ones included.
      expect(await endConnections(url)).toBeGreaterThan(0);
      await vi.waitFor(
        () => {
          if (!app.lines.some((line) => line.includes('"msg":"database connection lost"')))
            throw new Error("no connection loss logged");
        },
        { timeout: 10_000 },
      );
      expect(app.child.exitCode).toBeNull();
      const id = `msg_${crypto.randomUUID()}`;
      const after = JSON.stringify({ id: 901, name: "After the restart" });
      expect(await (await deliver(app.url, { token, secret, id, body: after })).json()).toEqual({
        received: true,
        duplicate: false,
      });
    } finally {
      await app.stop();
    }
  });

  it("refuses to start with a wrong database password, without printing either password", async () => {
    const wrong = `wrong_${crypto.randomUUID()}`;
    const { code, stdout, stderr } = await runCli([
      "--token",
      token,
      "--secret",
      secret,
      "--db",
      url.replace(password, wrong),
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain("password authentication failed");
    for (const value of [password, wrong, token, secret]) expect(`${stdout}${stderr}`).not.toContain(value);
  });

  it("never logs the database password, the tokens or the secrets", () => {
    expect(url).toContain(password);
    for (const app of [...apps, ...stopped]) {
      const output = app.output();
      expect(output).toContain('"msg":"listening"');
      for (const value of [password, token, secret, secret.slice(6)]) expect(output).not.toContain(value);
    }
  });
});
