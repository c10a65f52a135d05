import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateWebhookSecret } from "@plant-store/types";
import { DEMO_PLANTS } from "./demo-plants.js";
import { type AppLogLine, type RunningApp, resolveAppCli, spawnApp } from "./spawn-app.js";
import { createStoreAdminClient } from "./store-admin-client.js";

export interface DemoOptions {
  plants: number;
  keep: boolean;
  /** Where both SQLite files go; a fresh temporary directory when absent. */
  dataDir?: string;
  /** How long to wait for every plant to arrive. */
  timeoutMs: number;
  write: (text: string) => void;
  /** Resolves when the user asks a kept demo to stop (Ctrl-C). */
  waitForStop: () => Promise<void>;
}

export interface DemoSummary {
  plantsAdded: number;
  plantsArrived: number;
  duplicates: number;
  attempts: number;
  latencyMs: { p50: number; max: number };
  receiverUrl: string;
  storeUrl: string;
  ok: boolean;
}

interface Tracked {
  /** Set once the admin API answered; log lines can arrive before that. */
  added: boolean;
  name: string;
  tag?: string;
  addedAt: number;
  receivedAt?: number;
  /** When the store queued it (from its log), for plants the demo did not add itself. */
  queuedAt?: number;
  attempts: number;
  lastStatus: number | null;
  lastDurationMs: number;
  arrivals: number;
  delivered: boolean;
  reported: boolean;
}

export class DemoTimeoutError extends Error {
  readonly code = "ERR_DEMO_TIMEOUT";
  override readonly name = "DemoTimeoutError";
}

const token = () => randomBytes(24).toString("base64url");

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}

/**
 * Starts the receiver and the Plant Store as separate processes on free ports with SQLite files,
 * subscribes one to the other with a fresh token and secret, adds plants, and reports each
 * arrival until every plant has arrived exactly once.
 */
export async function runDemo(options: DemoOptions): Promise<DemoSummary> {
  const { write } = options;
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "plant-store-demo-"));
  const receiverToken = token();
  const secret = generateWebhookSecret();
  const adminToken = token();
  const storeDb = join(dataDir, "store.db");
  const apps: RunningApp[] = [];
  try {
    const receiver = await spawnApp("receiver", resolveAppCli("plant-receiver"), [
      "--port",
      "0",
      "--host",
      "127.0.0.1",
      "--db",
      join(dataDir, "receiver.db"),
      "--token",
      receiverToken,
      "--secret",
      secret,
    ]);
    apps.push(receiver);
    const store = await spawnApp("store", resolveAppCli("plant-store"), [
      "serve",
      "--port",
      "0",
      "--host",
      "127.0.0.1",
      "--db",
      storeDb,
      "--admin-token",
      adminToken,
      // Both apps are on loopback, which the store refuses by default (SSRF guard).
      "--allow-private-targets",
    ]);
    apps.push(store);

    write("Plant Store demo\n");
    write(`  receiver  ${receiver.url}   live page: ${receiver.url}/\n`);
    write(`  store     ${store.url}   (admin API; metrics at ${store.url}/metrics)\n`);
    write(`  data      ${dataDir}\n`);

    const tracked = new Map<number, Tracked>();
    const latencies: number[] = [];
    const track = (id: number): Tracked => {
      let plant = tracked.get(id);
      if (!plant) {
        plant = {
          added: false,
          name: "",
          addedAt: 0,
          attempts: 0,
          lastStatus: null,
          lastDurationMs: 0,
          arrivals: 0,
          delivered: false,
          reported: false,
        };
        tracked.set(id, plant);
      }
      return plant;
    };
    let settle: () => void = () => undefined;
    const allArrived = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const checkDone = () => {
      if (tracked.size >= options.plants && [...tracked.values()].every((plant) => plant.arrivals > 0))
        settle();
    };

    // A plant is shown once both sides have spoken: the store's delivered attempt (which attempt,
    // status, duration) and the receiver's "plant received" (when the handler ran).
    // After the summary of a kept demo, plants added elsewhere (`pnpm sender plants add`) are shown too.
    let watching = false;
    const report = (id: number, plant: Tracked) => {
      if (!plant.added && watching && plant.queuedAt !== undefined) {
        Object.assign(plant, { added: true, addedAt: plant.queuedAt });
      }
      if (!plant.added || plant.arrivals === 0 || !plant.delivered || plant.reported) return;
      plant.reported = true;
      const latencyMs = Math.max(0, (plant.receivedAt ?? Date.now()) - plant.addedAt);
      latencies.push(latencyMs);
      const tag = plant.tag ? ` [${plant.tag}]` : "";
      write(
        `  ✓ #${id} ${plant.name}${tag}: attempt ${plant.attempts} → ${plant.lastStatus ?? "?"} in ${plant.lastDurationMs} ms;` +
          ` handler ran ${latencyMs} ms after the plant was added\n`,
      );
      checkDone();
    };
    store.onLine((line: AppLogLine) => {
      if (line.msg !== "delivery attempt" || typeof line.plantId !== "number") return;
      const plant = track(line.plantId);
      if (typeof line.queuedAt === "string") plant.queuedAt = Date.parse(line.queuedAt);
      plant.attempts = typeof line.attempt === "number" ? line.attempt : plant.attempts + 1;
      plant.lastStatus = typeof line.status === "number" ? line.status : null;
      plant.lastDurationMs = typeof line.durationMs === "number" ? Math.round(line.durationMs) : 0;
      if (line.outcome === "delivered") {
        plant.delivered = true;
        report(line.plantId, plant);
      } else {
        write(
          `  … #${line.plantId} ${plant.name}: attempt ${plant.attempts} → ${plant.lastStatus ?? String(line.error)}, ${String(line.outcome)}\n`,
        );
      }
    });
    receiver.onLine((line: AppLogLine) => {
      if (line.msg !== "plant received" || typeof line.plantId !== "number") return;
      const plant = track(line.plantId);
      plant.arrivals += 1;
      plant.receivedAt = line.time ?? Date.now();
      if (!plant.name && typeof line.name === "string") plant.name = line.name;
      report(line.plantId, plant);
    });

    const admin = createStoreAdminClient(store.url, adminToken);
    await admin.addEndpoint({ url: `${receiver.url}/plant/webhook`, token: receiverToken, secret });
    write(`Subscribed ${receiver.url}/plant/webhook with a token and secret generated for this run.\n`);
    write(`Adding ${options.plants} plant${options.plants === 1 ? "" : "s"}…\n`);
    for (let index = 0; index < options.plants; index++) {
      const plant = DEMO_PLANTS[index % DEMO_PLANTS.length] ?? { name: "Plant" };
      const name = index < DEMO_PLANTS.length ? plant.name : `${plant.name} #${index + 1}`;
      const addedAt = Date.now();
      const input = plant.tag === undefined ? { name } : { name, tag: plant.tag };
      const added = await admin.addPlant(input);
      const entry = track(added.id);
      Object.assign(entry, { added: true, name, addedAt }, plant.tag === undefined ? {} : { tag: plant.tag });
      report(added.id, entry);
    }
    checkDone();

    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new DemoTimeoutError(`Not every plant arrived within ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
    });
    try {
      await Promise.race([allArrived, timedOut]);
    } finally {
      clearTimeout(timer);
    }

    // The receiver's own record is the judge of "exactly once", not our log bookkeeping.
    const response = await fetch(`${receiver.url}/plants?limit=1000`);
    const { plants } = (await response.json()) as { plants: Array<{ id: number }> };
    const counts = new Map<number, number>();
    for (const plant of plants) counts.set(plant.id, (counts.get(plant.id) ?? 0) + 1);
    const arrived = [...tracked.keys()].filter((id) => counts.get(id) === 1).length;
    const duplicates = [...counts.values()].reduce((sum, count) => sum + Math.max(0, count - 1), 0);
    const summary: DemoSummary = {
      plantsAdded: tracked.size,
      plantsArrived: arrived,
      duplicates,
      attempts: [...tracked.values()].reduce((sum, plant) => sum + plant.attempts, 0),
      latencyMs: { p50: median(latencies), max: Math.max(0, ...latencies) },
      receiverUrl: receiver.url,
      storeUrl: store.url,
      ok: arrived === tracked.size && duplicates === 0,
    };
    write(
      summary.ok
        ? `All ${summary.plantsAdded} plants arrived exactly once (${summary.attempts} attempts, latency p50 ${summary.latencyMs.p50} ms, max ${summary.latencyMs.max} ms).\n`
        : `Only ${summary.plantsArrived} of ${summary.plantsAdded} plants arrived exactly once (${summary.duplicates} duplicates).\n`,
    );

    if (options.keep) {
      write(`\nBoth apps keep running. Open ${receiver.url}/ and add more plants with:\n`);
      write(`  pnpm sender plants add --name "Aloe vera" --tag succulent --db ${storeDb}\n`);
      write("Press Ctrl-C to stop both.\n");
      watching = true;
      await options.waitForStop();
    }
    return summary;
  } finally {
    const codes = await Promise.all(apps.map((app) => app.stop()));
    if (options.keep) write(`Stopped both apps (exit codes ${codes.join(", ")}).\n`);
    if (ownsDataDir && !options.keep) rmSync(dataDir, { recursive: true, force: true });
  }
}
