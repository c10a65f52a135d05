import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateWebhookSecret } from "@plant-store/types";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { deliver, type RunningApp, startApp } from "../fixtures/start-app.js";

const token = "fault-token";
const secret = generateWebhookSecret();
const dir = mkdtempSync(join(tmpdir(), "plant-receiver-faults-"));
const file = join(dir, "receiver.db");
const args = ["--token", token, "--secret", secret, "--db", file, "--db-busy-timeout", "200"];

/**
 * Makes the database files unwritable even for root, while the app holds them open: the
 * immutable attribute (chattr +i, ext4/xfs/btrfs) refuses writes through descriptors opened
 * before it was set, where a chmod would not. The -shm file is left alone: it is mmapped, and
 * writes to a mapping of an immutable file end the process with SIGBUS rather than an error.
 */
function setImmutable(on: boolean) {
  const files = [file, `${file}-wal`].filter((f) => existsSync(f));
  execFileSync("chattr", [on ? "+i" : "-i", ...files]);
}

afterAll(() => {
  setImmutable(false);
  rmSync(dir, { recursive: true, force: true });
});

const plant = (id: number, name: string) => JSON.stringify({ id, name });

interface LogEntry {
  level: number;
  msg: string;
  webhookId?: string;
  err?: { code?: string; message?: string };
}

describe("plant-receiver on a SQLite file that fails", () => {
  let app: RunningApp;
  const accepted: string[] = [];
  beforeAll(async () => {
    app = await startApp(args);
    for (let i = 0; i < 3; i++) {
      const id = `msg_before_fault_${i}`;
      expect((await deliver(app.url, { token, secret, id, body: plant(i, `Safe ${i}`) })).status).toBe(200);
      accepted.push(id);
    }
  });
  afterEach(() => setImmutable(false));
  afterAll(async () => {
    await app?.stop();
  });

  const logged = () => app.lines.map((line) => JSON.parse(line) as LogEntry);
  const stored = async () => {
    const { plants } = (await (await app.read(`/plants?limit=1000`)).json()) as {
      plants: { webhookId: string }[];
    };
    return plants.map((p) => p.webhookId);
  };

  async function expectFailedThenStoredOnce(id: string, body: string, clear: () => void, sqliteCode: RegExp) {
    const failed = await deliver(app.url, { token, secret, id, body });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ error: 500, message: "Internal error" });
    // The log line may reach us through the pipe just after the answer.
    const line = await vi.waitFor(() => {
      const found = logged().find((entry) => entry.msg === "plant webhook failed" && entry.webhookId === id);
      if (found === undefined) throw new Error(`no failure logged for ${id}`);
      return found;
    });
    expect(line.level).toBe(50);
    expect(line.err?.code).toMatch(sqliteCode);
    // Still serving reads, and nothing accepted before the fault is gone.
    expect(await stored()).toEqual(expect.arrayContaining(accepted));
    expect(await stored()).not.toContain(id);

    clear();
    const retried = await deliver(app.url, { token, secret, id, body });
    expect(await retried.json()).toEqual({ received: true, duplicate: false });
    const again = await deliver(app.url, { token, secret, id, body });
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    const after = await stored();
    expect(after.filter((webhookId) => webhookId === id)).toHaveLength(1);
    expect(after).toEqual(expect.arrayContaining(accepted));
    accepted.push(id);
  }

  it("answers 500 while the file is read-only, logs why, and stores the redelivery once it is writable", async () => {
    setImmutable(true);
    await expectFailedThenStoredOnce(
      "msg_read_only",
      plant(10, "Read-only rubber plant"),
      () => setImmutable(false),
      /^SQLITE_(IOERR|READONLY|CANTOPEN)/,
    );
  });

  it("answers 500 while another process holds the write lock, and stores the redelivery once it is released", async () => {
    const other = new Database(file);
    other.exec("BEGIN EXCLUSIVE");
    try {
      await expectFailedThenStoredOnce(
        "msg_locked",
        plant(11, "Locked-out lavender"),
        () => other.exec("ROLLBACK"),
        /^SQLITE_BUSY/,
      );
    } finally {
      if (other.inTransaction) other.exec("ROLLBACK");
      other.close();
    }
  });

  it("still recognises handled ids after being killed with SIGKILL and restarted on the same file", async () => {
    expect(await app.stop("SIGKILL")).toBeNull();
    app = await startApp(args);
    for (const id of accepted) {
      const body = plant(0, "ignored: a duplicate is not parsed for storage");
      expect(await (await deliver(app.url, { token, secret, id, body })).json()).toEqual({
        received: true,
        duplicate: true,
      });
    }
    const after = await stored();
    for (const id of accepted) expect(after.filter((webhookId) => webhookId === id)).toHaveLength(1);
  });
});
