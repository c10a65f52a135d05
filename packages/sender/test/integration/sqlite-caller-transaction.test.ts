import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestReceiver, type TestReceiver } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createRetryPolicy,
  createSsrfGuard,
  createWorker,
  OutboxBusyError,
  OutboxInTransactionError,
  type Worker,
} from "../../src/index.js";
import { createSqliteOutbox, type SqliteOutbox } from "../../src/sqlite.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const secret = generateWebhookSecret();

describe("a SQLite outbox on the caller's own database", () => {
  let dir: string;
  let db: Database.Database;
  let outbox: SqliteOutbox;
  let receiver: TestReceiver;
  let worker: Worker;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "sender-caller-tx-"));
    db = new Database(join(dir, "app.db"));
    db.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL)");
    outbox = createSqliteOutbox(db);
    receiver = await startTestReceiver();
    await outbox.addEndpoint({
      url: `${receiver.url}/plant/webhook`,
      token: "tok",
      secrets: [secret],
    });
    // The worker shares the caller's handle, and only the same-process wake-up (no poll) can start it.
    worker = createWorker({
      outbox,
      policy: createRetryPolicy({ schedule: "0", jitter: 0 }),
      ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
      pollIntervalMs: 60_000,
    });
    worker.start();
  });

  afterEach(async () => {
    await worker.stop();
    await receiver.close();
    await outbox.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const placeOrder = (item: string, changeOfMind: boolean) =>
    db.transaction(() => {
      const { lastInsertRowid } = db.prepare("INSERT INTO orders (item) VALUES (?)").run(item);
      outbox.enqueueSync({ payload: { id: Number(lastInsertRowid), name: item } });
      if (changeOfMind) throw new Error("the caller rolls back");
    })();

  it("queues in the caller's db.transaction: nothing for one rolled back, one delivery for one committed", async () => {
    expect(() => placeOrder("Rolled back", true)).toThrow("the caller rolls back");
    placeOrder("Committed", false);
    const [request] = await receiver.waitForRequests(1);
    expect(JSON.parse(request?.body ?? "null")).toEqual({ id: 1, name: "Committed" });
    await pause(200);
    expect(receiver.requests).toHaveLength(1);
    expect(db.prepare("SELECT item FROM orders").pluck().all()).toEqual(["Committed"]);
    expect(await outbox.listDeliveries()).toHaveLength(1);
  });

  it("rolls the caller's rows back with a message it refuses", () => {
    expect(() =>
      db.transaction(() => {
        db.prepare("INSERT INTO orders (item) VALUES (?)").run("No message");
        outbox.enqueueSync({ payload: { id: 1n } });
      })(),
    ).toThrow(expect.objectContaining({ code: "ERR_INVALID_MESSAGE" }));
    expect(db.prepare("SELECT count(*) FROM orders").pluck().get()).toBe(0);
  });

  it("lets no worker on the shared handle claim a message while the caller's transaction is open", async () => {
    db.exec("BEGIN");
    db.prepare("INSERT INTO orders (item) VALUES (?)").run("Held open");
    outbox.enqueueSync({ payload: { id: 1, name: "Held open" } });
    worker.wake();
    await pause(300);
    expect(receiver.requests).toHaveLength(0);
    // Inside the open transaction the row is visible, and unclaimed.
    expect((await outbox.listDeliveries())[0]).toMatchObject({ status: "pending", attemptCount: 0 });
    db.exec("COMMIT");
    const [request] = await receiver.waitForRequests(1);
    expect(JSON.parse(request?.body ?? "null")).toEqual({ id: 1, name: "Held open" });
  });

  it("refuses at once an asynchronous call inside the caller's db.transaction, naming enqueueSync, and rolls it back", async () => {
    const order = db.transaction(() => {
      db.prepare("INSERT INTO orders (item) VALUES (?)").run("Async by mistake");
      // The promise would settle after the transaction: refused before it is made.
      void outbox.enqueue({ payload: { id: 1, name: "Async by mistake" } });
    });
    expect(() => order()).toThrow(
      expect.objectContaining({
        code: "ERR_OUTBOX_IN_TRANSACTION",
        message: expect.stringContaining("enqueueSync"),
      }),
    );
    expect(() =>
      db.transaction(() => {
        void outbox.enqueueMany([{ payload: { id: 2 } }]);
      })(),
    ).toThrow(OutboxInTransactionError);
    // Other calls wait for the caller's transaction to end rather than write into it.
    db.exec("BEGIN");
    await expect(
      outbox.addEndpoint({ url: "http://127.0.0.1:9/hook", token: "t", secrets: [secret] }),
    ).rejects.toThrow(OutboxBusyError);
    db.exec("ROLLBACK");
    expect(db.prepare("SELECT count(*) FROM orders").pluck().get()).toBe(0);
    expect(await outbox.listDeliveries()).toEqual([]);
    expect(await outbox.listEndpoints()).toHaveLength(1);
  });
});
