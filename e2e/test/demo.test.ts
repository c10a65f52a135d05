import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { waitFor } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { type RunningApp, resolveAppCli, spawnApp } from "plant-store-demo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const demoCli = join(import.meta.dirname, "../../apps/demo/dist/cli.js");

describe("pnpm demo", () => {
  it("starts both apps, delivers every plant exactly once and exits 0 with a summary", async () => {
    const child = spawn(process.execPath, [demoCli, "--plants", "6", "--json"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(0);
    const summary = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
    expect(summary).toMatchObject({ ok: true, plantsAdded: 6, plantsArrived: 6, duplicates: 0 });
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
  });
});

describe("the built apps as separate processes", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-e2e-"));
  const storeDb = join(dir, "store.db");
  const token = randomBytes(16).toString("hex");
  const secret = generateWebhookSecret();
  const adminToken = randomBytes(16).toString("hex");
  let receiver: RunningApp;
  let store: RunningApp;
  const storeCli = resolveAppCli("plant-store");

  beforeAll(async () => {
    receiver = await spawnApp("receiver", resolveAppCli("plant-receiver"), [
      ...["--port", "0", "--db", join(dir, "receiver.db"), "--token", token, "--secret", secret],
    ]);
    store = await spawnApp("store", storeCli, [
      ...["serve", "--port", "0", "--db", storeDb, "--admin-token", adminToken, "--allow-private-targets"],
    ]);
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
    const added: Array<{ id: number; name: string }> = [];
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
    const received = await waitFor(async () => {
      const response = await fetch(`${receiver.url}/plants?limit=1000`);
      const { plants } = (await response.json()) as {
        plants: Array<{ id: number; name: string; tag?: string }>;
      };
      return plants.length >= added.length ? plants : undefined;
    }, 30_000);
    // Give a duplicate a moment to show up if the pipe were to produce one.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const final = (await (await fetch(`${receiver.url}/plants?limit=1000`)).json()) as {
      plants: Array<{ id: number; name: string; tag?: string }>;
    };
    expect(final.plants).toHaveLength(added.length);
    expect(new Set(final.plants.map((plant) => plant.id)).size).toBe(added.length);
    expect(received.map((plant) => plant.name).sort()).toEqual(added.map((plant) => plant.name).sort());
    expect(final.plants.every((plant) => plant.tag === "e2e")).toBe(true);
  });
});
