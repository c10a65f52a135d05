import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  endConnections,
  startPostgres,
  startTestReceiver,
  type TestPostgres,
  type TestReceiver,
  waitFor,
} from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { cliJson } from "../fixtures/cli-in-process.js";
import { runCli, type StoreProcess, startStore } from "../fixtures/store-process.js";

const adminToken = "admin-token-0123456789";
const env = { PLANT_STORE_ADMIN_TOKEN: adminToken };

// The store is a process (it is the one that meets the fault), and so is the CLI whose exit code during
// a fault is checked; the commands that only set up or read the store run in the test's process
// (cli-in-process.ts), since expectAllDelivered polls with them. One PostgreSQL for the file, each test
// in a database of its own; with a password, which the last test checks is never logged.
const postgresPassword = `pg_pw_${crypto.randomUUID()}`;
let sharedPostgres: Promise<TestPostgres> | undefined;
function postgresForFile(): Promise<TestPostgres> {
  sharedPostgres ??= startPostgres({ password: postgresPassword });
  return sharedPostgres;
}

afterAll(async () => {
  await (await sharedPostgres)?.stop();
});

async function postPlant(store: StoreProcess, name: string) {
  const response = await fetch(`${store.url}/plants`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * The same on a connection of its own. While better-sqlite3 waits out a busy timeout the whole
 * process is blocked, and the server's keep-alive timer for an idle pooled socket fires as soon as it
 * wakes, resetting a request a pooling client had just sent on that socket.
 */
function postPlantFresh(store: StoreProcess, name: string) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const payload = JSON.stringify({ name });
    const request = httpRequest(
      `${store.url}/plants`,
      {
        method: "POST",
        agent: false,
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

interface Listed {
  deliveries: Array<{ webhookId: string; status: string }>;
}

/**
 * Sets up a store delivering to a receiver, with `accepted` plants delivered before the fault and
 * one more accepted but still pending (the receiver fails it) when the fault begins.
 */
async function pipeWithPendingWork(db: string, receiver: TestReceiver, stores: StoreProcess[]) {
  await cliJson([
    ...["endpoints", "add", `${receiver.url}/plant/webhook`, "--token", "tok"],
    ...["--secret", generateWebhookSecret(), "--db", db],
  ]);
  const store = await startStore(
    ["--db", db, "--allow-private-targets", "--retry-schedule", ["0", ...Array(30).fill("300ms")].join(",")],
    env,
  );
  stores.push(store);
  const accepted: string[] = [];
  for (const name of ["Before fault 1", "Before fault 2"]) {
    const { status, body } = await postPlant(store, name);
    expect(status).toBe(201);
    accepted.push((body.plant as { webhookId: string }).webhookId);
  }
  await receiver.waitForRequests(2);
  receiver.respond((_request, response) => {
    response.writeHead(500).end();
  });
  const { body } = await postPlant(store, "Pending at the fault");
  accepted.push((body.plant as { webhookId: string }).webhookId);
  await receiver.waitForRequests(3);
  return { store, accepted };
}

async function expectAllDelivered(db: string, accepted: string[]) {
  const delivered = await waitFor(async () => {
    const { deliveries } = await cliJson<Listed>(["deliveries", "list", "--status", "delivered", "--db", db]);
    return deliveries.length === accepted.length ? deliveries : undefined;
  }, 30_000);
  expect(delivered.map((delivery) => delivery.webhookId).sort()).toEqual([...accepted].sort());
  const { plants } = await cliJson<{ plants: unknown[] }>(["plants", "list", "--db", db]);
  expect(plants).toHaveLength(accepted.length);
}

describe("the store on a SQLite file that becomes read-only", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-readonly-"));
  const db = join(dir, "store.db");
  const stores: StoreProcess[] = [];
  // The immutable attribute refuses writes even to root and through descriptors already open, where
  // chmod would not. The -shm file stays writable: it is mmapped, and a write to an immutable mapping
  // ends the process with SIGBUS instead of an error.
  const immutable = (on: boolean) =>
    execFileSync("chattr", [on ? "+i" : "-i", ...[db, `${db}-wal`].filter((file) => existsSync(file))]);

  afterAll(async () => {
    immutable(false);
    await Promise.all(stores.map((store) => store.kill()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses new plants with 503 / a non-zero exit, logs the worker's error, then delivers everything accepted", async () => {
    const receiver = await startTestReceiver();
    try {
      const { store, accepted } = await pipeWithPendingWork(db, receiver, stores);
      immutable(true);
      try {
        const refused = await postPlant(store, "During the fault");
        expect(refused.status).toBe(503);
        expect(refused.body).toEqual({ error: 503, message: expect.stringContaining("SQLITE_") });
        const cli = await runCli(["plants", "add", "--name", "During the fault (CLI)", "--db", db]);
        expect(cli.code).not.toBe(0);
        expect(cli.stderr).toMatch(/readonly|read-only|SQLITE/i);
        receiver.respond((_request, response) => {
          response.writeHead(200).end();
        });
        // The worker cannot record its attempts or claim work: it says so, and keeps running.
        await waitFor(
          () =>
            store.lines.find(
              (line) =>
                (line.level === 50 &&
                  (line.msg === "could not record attempt" ||
                    line.msg === "claiming due deliveries failed")) ||
                // A failed record is retried under its lease, each failure a warning.
                (line.level === 40 && line.msg === "recording an attempt failed, retrying"),
            ),
          20_000,
        );
        expect(store.child.exitCode).toBeNull();
      } finally {
        immutable(false);
      }
      await expectAllDelivered(db, accepted);
      expect(await store.stop()).toBe(0);
    } finally {
      await receiver.close();
    }
  });
});

describe("the store on a SQLite file another connection holds locked", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-locked-"));
  const db = join(dir, "store.db");
  const stores: StoreProcess[] = [];

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.kill()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 503 once the busy timeout passes and delivers everything accepted once the lock is gone", async () => {
    const receiver = await startTestReceiver();
    const locker = new Database(db);
    try {
      const { store, accepted } = await pipeWithPendingWork(db, receiver, stores);
      receiver.respond((_request, response) => {
        response.writeHead(200).end();
      });
      // Let the worker go idle first: each of its writes would also wait out the busy timeout, and
      // the process is blocked while it does (better-sqlite3 is synchronous).
      await expectAllDelivered(db, accepted);
      locker.exec("BEGIN EXCLUSIVE");
      try {
        // better-sqlite3 waits out the 10 s busy timeout synchronously, so the answer takes that long.
        const refused = await postPlantFresh(store, "During the lock");
        expect(refused.status).toBe(503);
        expect(refused.body).toEqual({ error: 503, message: expect.stringContaining("SQLITE_BUSY") });
      } finally {
        locker.exec("ROLLBACK");
      }
      await expectAllDelivered(db, accepted);
      expect(await store.stop()).toBe(0);
    } finally {
      locker.close();
      await receiver.close();
    }
  }, 90_000);
});

describe("the store on a PostgreSQL table another session holds locked", () => {
  const stores: StoreProcess[] = [];

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.kill()));
  });

  it("answers 503 after the lock timeout instead of hanging, and delivers everything accepted once the lock is gone", async () => {
    const db = await (await postgresForFile()).createDatabase();
    const receiver = await startTestReceiver();
    const locker = new pg.Client({ connectionString: db });
    try {
      const { store, accepted } = await pipeWithPendingWork(db, receiver, stores);
      receiver.respond((_request, response) => {
        response.writeHead(200).end();
      });
      await locker.connect();
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE store_plants, webhook_deliveries IN ACCESS EXCLUSIVE MODE");
      try {
        // Each waits out the 5 s lock timeout on a connection of its own: side by side, not one after the
        // other (5 s of a CI near its limit); each is checked alone below.
        const [refused, cli] = await Promise.all([
          postPlant(store, "During the lock"),
          runCli(["plants", "add", "--name", "During the lock (CLI)", "--db", db]),
        ]);
        expect(refused.status).toBe(503);
        expect(refused.body).toEqual({ error: 503, message: expect.stringContaining("SQLSTATE 55P03") });
        expect(cli.code).not.toBe(0);
        expect(cli.stderr).toMatch(/lock/i);
        await waitFor(
          () =>
            store.lines.find((line) => line.level === 50 && line.msg === "claiming due deliveries failed"),
          20_000,
        );
      } finally {
        await locker.query("ROLLBACK");
      }
      await expectAllDelivered(db, accepted);
      expect(await store.stop()).toBe(0);
    } finally {
      await locker.end().catch(() => undefined);
      await receiver.close();
    }
  }, 90_000);
});

describe("the store when PostgreSQL ends every connection (a restart, a failover)", () => {
  const stores: StoreProcess[] = [];
  const password = postgresPassword;

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.kill()));
  });

  it("logs the loss without the password, keeps running and delivers what is added after", async () => {
    const db = await (await postgresForFile()).createDatabase();
    const receiver = await startTestReceiver();
    try {
      const { store, accepted } = await pipeWithPendingWork(db, receiver, stores);
      receiver.respond((_request, response) => {
        response.writeHead(200).end();
      });
      // What a server restart or a failover does to every open connection, idle pooled ones included.
      expect(await endConnections(db)).toBeGreaterThan(0);
      await waitFor(() => store.lines.find((line) => line.msg === "database connection lost"), 20_000);
      expect(store.child.exitCode).toBeNull();
      // A connection of its own: the wait for the log line can outlast the server's keep-alive timeout
      // on the socket fetch pooled before, and a request sent as the server closes it is reset.
      const after = await postPlantFresh(store, "After the restart");
      expect(after.status).toBe(201);
      accepted.push((after.body.plant as { webhookId: string }).webhookId);
      await expectAllDelivered(db, accepted);
      expect(await store.stop()).toBe(0);
      expect(db).toContain(password);
      expect(store.output()).not.toContain(password);
    } finally {
      await receiver.close();
    }
  }, 90_000);
});
