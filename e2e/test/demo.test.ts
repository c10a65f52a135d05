import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { readAppEvent } from "@plant-store/app-shell";
import {
  type AppLogLine,
  launchPersistentChromium,
  parseHandledCount,
  type RunningApp,
  resolveAppCli,
  spawnApp,
  waitFor,
} from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceRoot } from "./fixtures/published-packages.js";

const run = promisify(execFile);
const demoCli = join(import.meta.dirname, "../../apps/demo/dist/cli.js");

/** Exit code and signal of a child, once it has exited and its output has all been read ("close"). */
function exited(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
}

/** The fields of `pnpm demo --json`'s last line that these tests read: the demo's output, seen from outside. */
interface DemoSummary {
  ok: boolean;
  plantsAdded: number;
  plantsArrived: number;
  duplicates: number;
  handlerCalls: number;
  attempts: number;
  plants: Array<{ id?: number; webhookId: string; [field: string]: unknown }>;
}

/** What the demo printed, checked line by line: every ✓ line comes before the summary. */
function checkedLines(stdout: string, plants: number): { checks: string[]; after: string[] } {
  const lines = stdout.split("\n");
  const summaryAt = lines.findIndex((line) => line.startsWith(`All ${plants} plants arrived exactly once`));
  expect(summaryAt, stdout).toBeGreaterThan(0);
  const isCheck = (line: string) => line.startsWith("  ✓ #");
  return { checks: lines.slice(0, summaryAt).filter(isCheck), after: lines.slice(summaryAt).filter(isCheck) };
}

describe("pnpm demo", () => {
  it("starts both apps, delivers every plant exactly once and exits 0 with a summary", async () => {
    const child = spawn(process.execPath, [demoCli, "--plants", "6", "--json"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    const summary = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as DemoSummary;
    expect(summary).toMatchObject({ ok: true, plantsAdded: 6, plantsArrived: 6, duplicates: 0 });
    // The receiver's own count of handler calls, and the per-webhook-id count from its log lines.
    expect(summary.handlerCalls).toBe(6);
    expect(summary.plants).toHaveLength(6);
    for (const plant of summary.plants)
      expect(plant, JSON.stringify(plant)).toMatchObject({ handlerCalls: 1, stored: 1 });
    expect(new Set(summary.plants.map((plant) => plant.webhookId)).size).toBe(6);
    expect(summary.attempts).toBeGreaterThanOrEqual(6);
    // One ✓ line per plant, all of them before the summary: the demo waited for both apps' word on each.
    const { checks, after } = checkedLines(stdout, 6);
    expect(after).toStrictEqual([]);
    expect(checks.map((line) => Number(/#(\d+)/.exec(line)?.[1])).sort((a, b) => a - b)).toStrictEqual(
      summary.plants.map((plant) => plant.id ?? 0).sort((a, b) => a - b),
    );
    expect(stdout).toContain("Monstera deliciosa");
    expect(stdout).toMatch(/live page: http:\/\/127\.0\.0\.1:\d+\//);
  });

  it("two demos at once do not collide on ports or files", async () => {
    const results = await Promise.all(
      [0, 1].map(() => run(process.execPath, [demoCli, "--plants", "3", "--json"], { timeout: 60_000 })),
    );
    const summaries = results.map(({ stdout }) => JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}"));
    for (const summary of summaries) expect(summary).toMatchObject({ ok: true, plantsArrived: 3 });
    expect(summaries[0].receiverUrl).not.toBe(summaries[1].receiverUrl);
    for (const { stdout } of results) expect(checkedLines(stdout, 3).checks).toHaveLength(3);
  });

  it("judges more plants than the receiver's /plants page holds (1,000)", async () => {
    const { stdout } = await run(process.execPath, [demoCli, "--plants", "1001", "--json"], {
      timeout: 90_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const summary = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as DemoSummary;
    expect(summary).toMatchObject({ ok: true, plantsAdded: 1001, plantsArrived: 1001, duplicates: 0 });
    expect(summary.handlerCalls).toBe(1001);
    expect(checkedLines(stdout, 1001).checks).toHaveLength(1001);
  });

  it("--keep leaves both apps running until Ctrl-C, then stops both, removes its data and exits 0", async () => {
    // `pnpm demo --keep` exactly as a user types it, in a process group of its own: Ctrl-C in a
    // terminal signals the whole group (pnpm, the demo and both apps), and pnpm forwards one more.
    const child = spawn("pnpm", ["demo", "--keep", "--plants", "3"], {
      cwd: workspaceRoot,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exit = exited(child);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    try {
      await waitFor(() => (stdout.includes("Press Ctrl-C") ? true : undefined), 90_000);
      const receiverUrl = /receiver\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1] ?? "";
      // The tokens are printed for the terminal (curl, the pages' forms), never put in a link.
      const readToken = /read side with Authorization: Bearer (\S+)\)/.exec(stdout)?.[1] ?? "";
      const adminToken = /admin API with Authorization: Bearer (\S+);/.exec(stdout)?.[1] ?? "";
      expect(readToken).toMatch(/^[\w-]{32}$/);
      expect(adminToken).toMatch(/^[\w-]{32}$/);
      const storeUrl = /store\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1] ?? "";
      const dataDir = /data\s+(\S+)/.exec(stdout)?.[1] ?? "";
      expect(checkedLines(stdout, 3).checks).toHaveLength(3);
      // Both apps are up after the summary, and the receiver holds the three plants.
      expect((await fetch(`${storeUrl}/healthz`)).status).toBe(200);
      const read = { headers: { authorization: `Bearer ${readToken}` } };
      const { plants } = (await (await fetch(`${receiverUrl}/plants?limit=10`, read)).json()) as {
        plants: unknown[];
      };
      expect(plants).toHaveLength(3);
      expect(existsSync(join(dataDir, "store.db"))).toBe(true);
      const admin = { headers: { authorization: `Bearer ${adminToken}` } };
      const { endpoints } = (await (await fetch(`${storeUrl}/endpoint-health`, admin)).json()) as {
        endpoints: Array<{ attempts: number; succeeded: number }>;
      };
      // Its health figures: the three plants, each answered with a 2xx (a retried one adds an attempt).
      expect(endpoints).toHaveLength(1);
      expect(endpoints[0]?.succeeded).toBe(3);
      expect(endpoints[0]?.attempts).toBeGreaterThanOrEqual(3);

      // Both printed links open their page in a browser with a profile on disk, as a user's is. They
      // carry a single-use code, never a token: afterwards neither token is anywhere in its History
      // (it kept `/#token=<admin token>` and `/?read_token=<read token>` before).
      const storeLink = /the store's page\s+(http:\S+)/.exec(stdout)?.[1] ?? "";
      const liveLink = /the receiver's page\s+(http:\S+)/.exec(stdout)?.[1] ?? "";
      expect(storeLink).toMatch(new RegExp(`^${storeUrl}/#code=[\\w-]{43}$`));
      expect(liveLink).toMatch(new RegExp(`^${receiverUrl}/#code=[\\w-]{43}$`));
      const profile = mkdtempSync(join(tmpdir(), "plant-store-demo-profile-"));
      try {
        const browser = await launchPersistentChromium(profile);
        try {
          const storePage = await browser.newPage();
          await storePage.goto(storeLink);
          await storePage.locator('tr[data-delivery-id][data-status="delivered"]').first().waitFor();
          expect(storePage.url()).toBe(`${storeUrl}/`);
          const livePage = await browser.newPage();
          await livePage.goto(liveLink);
          await livePage.locator('body[data-live="live"]').waitFor();
          expect(await livePage.locator("#plants li").count()).toBe(3);
          expect(livePage.url()).toBe(`${receiverUrl}/`);
        } finally {
          await browser.close();
        }
        const historyFiles = readdirSync(join(profile, "Default")).filter((name) =>
          name.startsWith("History"),
        );
        expect(historyFiles).toContain("History");
        const history = new Database(join(profile, "Default", "History"), { readonly: true });
        let visited: Array<{ url: string; title: string }>;
        try {
          visited = history.prepare<[], { url: string; title: string }>("SELECT url, title FROM urls").all();
        } finally {
          history.close();
        }
        // The visits were recorded: it is the place a token would be.
        expect(visited.map((entry) => entry.url)).toEqual(expect.arrayContaining([storeLink, liveLink]));
        const bytes = historyFiles.map((name) =>
          readFileSync(join(profile, "Default", name)).toString("latin1"),
        );
        for (const secretToken of [adminToken, readToken, encodeURIComponent(adminToken)]) {
          expect(JSON.stringify(visited)).not.toContain(secretToken);
          for (const file of bytes) expect(file).not.toContain(secretToken);
        }
      } finally {
        rmSync(profile, { recursive: true, force: true });
      }
      // The printed check command passes against the demo's receiver, as printed (after the page's count above:
      // it adds plants of its own).
      const check = /pnpm receiver check (.+)\n/.exec(stdout)?.[1]?.split(" ") ?? [];
      const checked = await run(process.execPath, [
        resolveAppCli("plant-receiver", import.meta.url),
        "check",
        ...check,
      ]);
      expect(checked.stdout).toContain("the receiver conforms");
      expect(stdout).toMatch(/pnpm sender listen --forward-to \S+ --store http:\S+ --admin-token \S+\n/);

      process.kill(-(child.pid as number), "SIGINT");
      expect(await exit, `${stdout}\n${stderr}`).toStrictEqual({ code: 0, signal: null });
      expect(stdout).toContain("Stopped both apps (exit codes 0, 0).");
      expect(stdout).toContain(`Removed ${dataDir}.`);
      expect(existsSync(dataDir)).toBe(false);
      expect(stderr).not.toContain("ELIFECYCLE");
      // Nothing listens any more on either port.
      await expect(fetch(`${receiverUrl}/healthz`)).rejects.toThrow();
      await expect(fetch(`${storeUrl}/healthz`)).rejects.toThrow();
    } finally {
      // Whatever is left of the group (nothing, when the demo did its job).
      try {
        process.kill(-(child.pid as number), "SIGKILL");
      } catch {
        // ESRCH: the group is gone.
      }
    }
  });
});

describe("the built apps as separate processes", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-e2e-"));
  const storeDb = join(dir, "store.db");
  const token = randomBytes(16).toString("hex");
  const secret = generateWebhookSecret();
  const adminToken = randomBytes(16).toString("hex");
  const readToken = randomBytes(16).toString("hex");
  let receiver: RunningApp;
  let store: RunningApp;
  const storeCli = resolveAppCli("plant-store", import.meta.url);
  /** Handler calls per webhook id, from the receiver's `webhook.handled` events. */
  const handlerCalls = new Map<string, number>();
  /** The webhook ids the store logged as delivered, from its attempt lines. */
  const deliveredIds = new Set<string>();

  beforeAll(async () => {
    receiver = await spawnApp("receiver", resolveAppCli("plant-receiver", import.meta.url), [
      ...["--port", "0", "--db", join(dir, "receiver.db"), "--token", token, "--secret", secret],
      ...["--read-token", readToken],
    ]);
    receiver.onLine((line: AppLogLine) => {
      const event = readAppEvent(line);
      if (event?.event === "webhook.handled" && event.outcome === "received" && event.webhookId)
        handlerCalls.set(event.webhookId, (handlerCalls.get(event.webhookId) ?? 0) + 1);
    });
    store = await spawnApp("store", storeCli, [
      ...["serve", "--port", "0", "--db", storeDb, "--admin-token", adminToken, "--allow-private-targets"],
    ]);
    store.onLine((line: AppLogLine) => {
      const event = readAppEvent(line);
      if (event?.event === "delivery.attempted" && event.outcome === "delivered")
        deliveredIds.add(event.webhookId);
    });
    await run(process.execPath, [
      ...[
        storeCli,
        "endpoints",
        "add",
        `${receiver.url}/plant/webhook`,
        "--token",
        token,
        "--secret",
        secret,
      ],
      ...["--db", storeDb, "--json"],
    ]);
  });

  afterAll(async () => {
    expect(await store?.stop()).toBe(0);
    expect(await receiver?.stop()).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });

  it("delivers every plant added by the CLI to the running receiver exactly once", async () => {
    const added: Array<{ id: number; name: string; webhookId: string }> = [];
    for (let index = 0; index < 10; index++) {
      const { stdout } = await run(process.execPath, [
        ...[
          storeCli,
          "plants",
          "add",
          "--name",
          `E2E plant ${index}`,
          "--tag",
          "e2e",
          "--db",
          storeDb,
          "--json",
        ],
      ]);
      const parsed = JSON.parse(stdout);
      added.push(parsed.plant);
    }
    // Every plant delivered by the store's account, and its handler call seen by the receiver's.
    await waitFor(
      () =>
        added.every((plant) => deliveredIds.has(plant.webhookId) && handlerCalls.has(plant.webhookId))
          ? true
          : undefined,
      30_000,
    );
    // Every delivery recorded as delivered: the store sends nothing more, and each handler call came
    // before the answer the store recorded, so the receiver's counts below are final (no sleep).
    const admin = { headers: { authorization: `Bearer ${adminToken}` } };
    const deliveries = await waitFor(async () => {
      const listed = (await (await fetch(`${store.url}/deliveries?limit=100`, admin)).json()) as {
        deliveries: Array<{ webhookId: string; status: string }>;
      };
      return listed.deliveries.every((delivery) => delivery.status === "delivered")
        ? listed.deliveries
        : undefined;
    }, 30_000);
    expect(deliveries.map((delivery) => delivery.webhookId).sort()).toEqual(
      added.map((plant) => plant.webhookId).sort(),
    );
    // The receiver app stores one row per webhook id, so a second handler call would not show in
    // /plants: count the calls themselves, per webhook id, and the receiver's metrics.
    for (const plant of added) expect(handlerCalls.get(plant.webhookId), plant.name).toBe(1);
    expect([...handlerCalls.values()].reduce((sum, count) => sum + count, 0)).toBe(added.length);
    const read = { headers: { authorization: `Bearer ${readToken}` } };
    const metrics = await (await fetch(`${receiver.url}/metrics`, read)).text();
    expect(parseHandledCount(metrics)).toBe(added.length);
    const final = (await (await fetch(`${receiver.url}/plants?limit=1000`, read)).json()) as {
      plants: Array<{ id: number; name: string; tag?: string }>;
    };
    expect(final.plants).toHaveLength(added.length);
    expect(new Set(final.plants.map((plant) => plant.id)).size).toBe(added.length);
    expect(final.plants.map((plant) => plant.name).sort()).toEqual(added.map((plant) => plant.name).sort());
    expect(final.plants.every((plant) => plant.tag === "e2e")).toBe(true);
  });
});
