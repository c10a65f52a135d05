import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readAppEvent } from "@plant-store/app-shell";
import { parseHandledCount } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { createDeliveryLedger, type LedgerEntry } from "./create-delivery-ledger.js";
import { DEMO_PLANTS } from "./demo-plants.js";
import { signInLink } from "./sign-in-link.js";
import { type RunningApp, resolveAppCli, spawnApp } from "./spawn-app.js";
import { createStoreAdminClient } from "./store-admin-client.js";

export interface DemoOptions {
  plants: number;
  keep: boolean;
  /** Where both SQLite files go; a fresh temporary directory (removed at the end) when absent. */
  dataDir?: string;
  /** How long to wait for every plant to arrive. */
  timeoutMs: number;
  write: (text: string) => void;
  /**
   * Aborted when the user asks to stop (Ctrl-C). A kept demo then stops both apps and returns its
   * summary; a demo still waiting for its plants stops both apps and throws DemoInterruptedError.
   */
  signal?: AbortSignal;
}

/** One plant of the run, as the summary reports it. */
export interface DemoPlant {
  /** Null only for a plant the receiver never stored (its id comes from the admin API or the receiver). */
  id: number | null;
  webhookId: string;
  attempts: number;
  /** How many times the receiver's handler ran for this plant's webhook id: 1 when all is well. */
  handlerCalls: number;
  /** How many rows the receiver app stored for it: 1 when all is well. */
  stored: number;
}

/**
 * The second receiver, down while the plants were added (every push to it failed) and started afterwards
 * with `--catch-up-from`: what it handled from the store's events API.
 */
export interface DemoCatchUp {
  /** Push attempts to it that failed while it was down. */
  failedPushes: number;
  /** Plants it handled exactly once (pulled and verified, or pushed by a retry, never both). */
  handledOnce: number;
  /** Handler runs beyond the first for any plant: 0 when all is well. */
  duplicates: number;
  ok: boolean;
}

export interface DemoSummary {
  plantsAdded: number;
  plantsArrived: number;
  /** Handler calls beyond the first, over every webhook id. */
  duplicates: number;
  /** Requests the receiver answered by running its handler, by its own metrics. */
  handlerCalls: number;
  attempts: number;
  latencyMs: { p50: number; max: number };
  receiverUrl: string;
  storeUrl: string;
  plants: DemoPlant[];
  /** The receiver that was down and caught up. */
  catchUp: DemoCatchUp;
  ok: boolean;
}

export class DemoTimeoutError extends Error {
  readonly code = "ERR_DEMO_TIMEOUT";
  override readonly name = "DemoTimeoutError";
}

export class DemoInterruptedError extends Error {
  readonly code = "ERR_DEMO_INTERRUPTED";
  override readonly name = "DemoInterruptedError";
}

const token = () => randomBytes(24).toString("base64url");

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}

/** Resolves when `signal` aborts (at once if it already has); never when there is none. */
function aborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) resolve();
    else signal?.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** A loopback port nobody listens on now: where the second receiver will come back up. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

/**
 * Starts the receiver and the Plant Store as separate processes on free ports with SQLite files,
 * subscribes one to the other with a fresh token and secret, adds plants, and reports each
 * arrival until every plant has arrived exactly once. A second receiver is subscribed too but down
 * (nothing listens at its port) while the plants are added; it is then started with `--catch-up-from`
 * and handles every plant it missed from the store's events API, each exactly once.
 */
export async function runDemo(options: DemoOptions): Promise<DemoSummary> {
  const { write, signal } = options;
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "plant-store-demo-"));
  const receiverToken = token();
  const secret = generateWebhookSecret();
  const adminToken = token();
  // The receiver's read side (live page, /plants, /metrics) needs its own token. The demo prints
  // sign-in links to both pages that carry a single-use code, never a token: a token in a URL stays
  // in the browser's history.
  const readToken = token();
  const storeDb = join(dataDir, "store.db");
  const apps: RunningApp[] = [];
  const interrupted = aborted(signal).then(() => {
    throw new DemoInterruptedError("Interrupted before every plant arrived");
  });
  // Only ever observed through Promise.race; never an unhandled rejection on its own.
  interrupted.catch(() => undefined);
  const unlessInterrupted = <T>(step: Promise<T>): Promise<T> => Promise.race([step, interrupted]);
  try {
    // Not raced against Ctrl-C: an app that is still starting would be left running, unstopped.
    const receiver = await spawnApp("receiver", resolveAppCli("plant-receiver"), [
      ...["--port", "0", "--host", "127.0.0.1", "--db", join(dataDir, "receiver.db")],
      ...["--token", receiverToken, "--secret", secret, "--read-token", readToken],
    ]);
    apps.push(receiver);
    const store = await spawnApp("store", resolveAppCli("plant-store"), [
      ...["serve", "--port", "0", "--host", "127.0.0.1", "--db", storeDb, "--admin-token", adminToken],
      // Both apps are on loopback, which the store refuses by default (SSRF guard).
      "--allow-private-targets",
    ]);
    apps.push(store);
    if (signal?.aborted) throw new DemoInterruptedError("Interrupted while starting the apps");

    write("Plant Store demo\n");
    const links = async () =>
      unlessInterrupted(
        Promise.all([signInLink(receiver.url, readToken), signInLink(store.url, adminToken)]),
      );
    const [livePageUrl, storePageUrl] = await links();
    write(`  receiver  ${receiver.url}   live page: ${livePageUrl}\n`);
    write(`            (read side with Authorization: Bearer ${readToken})\n`);
    write(`  store     ${store.url}   store page: ${storePageUrl}\n`);
    write(
      `            (admin API with Authorization: Bearer ${adminToken}; metrics at ${store.url}/metrics)\n`,
    );
    write(`  data      ${dataDir}\n`);

    const ledger = createDeliveryLedger();
    const latencies: number[] = [];
    let settle: () => void = () => undefined;
    const allArrived = new Promise<void>((resolve) => {
      settle = resolve;
    });
    // Done once every plant was added and both sides have spoken for each: the store's delivered
    // attempt and the receiver's handler call and stored row. Either side alone is not enough: the
    // store logs "delivered" only after the receiver has answered and the attempt is recorded.
    let reported = 0;
    const checkDone = () => {
      if (reported >= options.plants && reported === ledger.plants.size) settle();
    };

    // After the summary of a kept demo, plants added elsewhere (`pnpm sender plants add`) are shown too.
    let watching = false;
    const report = (plant: LedgerEntry) => {
      if (!plant.added && watching && plant.queuedAt !== undefined) {
        Object.assign(plant, { added: true, addedAt: plant.queuedAt });
      }
      if (!plant.added || plant.reported || !ledger.isComplete(plant)) return;
      plant.reported = true;
      reported += 1;
      const latencyMs = Math.max(0, (plant.receivedAt ?? Date.now()) - plant.addedAt);
      latencies.push(latencyMs);
      const tag = plant.tag ? ` [${plant.tag}]` : "";
      write(
        `  ✓ #${plant.id} ${plant.name}${tag}: attempt ${plant.attempts} → ${plant.lastStatus ?? "?"} in ${plant.lastDurationMs} ms;` +
          ` handler ran ${latencyMs} ms after the plant was added\n`,
      );
      checkDone();
    };
    // The down receiver's failed pushes are counted apart: the ledger follows the first receiver's.
    let lateEndpointId: number | undefined;
    let failedPushes = 0;
    store.onLine((line) => {
      const event = readAppEvent(line);
      if (event?.event === "delivery.attempted" && event.endpointId === lateEndpointId) {
        if (event.outcome !== "delivered") failedPushes += 1;
        return;
      }
      const seen = ledger.storeLine(line);
      if (seen === undefined) return;
      const { plant, notDelivered } = seen;
      if (notDelivered === undefined) report(plant);
      else
        write(
          `  … #${plant.id} ${plant.name}: attempt ${plant.attempts} → ${plant.lastStatus ?? plant.lastError}, ${notDelivered}\n`,
        );
    });
    receiver.onLine((line) => {
      const plant = ledger.receiverLine(line);
      if (plant) report(plant);
    });

    const admin = createStoreAdminClient(store.url, adminToken);
    await unlessInterrupted(
      admin.addEndpoint({ url: `${receiver.url}/plant/webhook`, token: receiverToken, secret }),
    );
    write(`Subscribed ${receiver.url}/plant/webhook with a token and secret generated for this run.\n`);
    const latePort = await freePort();
    const lateUrl = `http://127.0.0.1:${latePort}`;
    const lateToken = token();
    const lateSecret = generateWebhookSecret();
    const lateEndpoint = await unlessInterrupted(
      admin.addEndpoint({ url: `${lateUrl}/plant/webhook`, token: lateToken, secret: lateSecret }),
    );
    lateEndpointId = Number(lateEndpoint.id);
    write(`Subscribed a second receiver, ${lateUrl}/plant/webhook, which is down for now.\n`);
    write(`Adding ${options.plants} plant${options.plants === 1 ? "" : "s"}…\n`);
    for (let index = 0; index < options.plants; index++) {
      const plant = DEMO_PLANTS[index % DEMO_PLANTS.length] ?? { name: "Plant" };
      const name = index < DEMO_PLANTS.length ? plant.name : `${plant.name} #${index + 1}`;
      const addedAt = Date.now();
      const input = plant.tag === undefined ? { name } : { name, tag: plant.tag };
      const added = await unlessInterrupted(admin.addPlant(input));
      const entry = ledger.plant(added.webhookId, added.id);
      Object.assign(entry, { added: true, name, addedAt }, plant.tag === undefined ? {} : { tag: plant.tag });
      report(entry);
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
      await Promise.race([allArrived, timedOut, interrupted]);
    } finally {
      clearTimeout(timer);
    }

    // The receiver's own tally of handler calls (its metrics), beside the per-webhook-id count from
    // its log lines: a second handler call for any plant changes both.
    const metrics = await unlessInterrupted(
      fetch(`${receiver.url}/metrics`, { headers: { authorization: `Bearer ${readToken}` } }).then((r) =>
        r.text(),
      ),
    );
    const handlerCalls = parseHandledCount(metrics);
    const verdict = ledger.verdict(handlerCalls);
    // The second receiver comes up where it was subscribed and catches up on what its pushes missed.
    write(
      `\nThe second receiver was down: ${failedPushes} push attempt${failedPushes === 1 ? "" : "s"} to it failed. ` +
        "Starting it with --catch-up-from the store's events API…\n",
    );
    const eventsUrl = `${store.url}/endpoints/${lateEndpointId}/events`;
    const late = await spawnApp("late receiver", resolveAppCli("plant-receiver"), [
      ...["--port", String(latePort), "--host", "127.0.0.1", "--db", join(dataDir, "late-receiver.db")],
      ...["--token", lateToken, "--secret", lateSecret, "--read-token", readToken],
      ...["--catch-up-from", eventsUrl, "--catch-up-token", lateToken, "--catch-up-every", "1m"],
    ]);
    apps.push(late);
    write(`  receiver  ${late.url}   catching up from ${eventsUrl}\n`);
    // What ran its handler for each plant: a pulled event (`catch-up.event` received) or a retried push.
    const lateHandled = new Map<string, number>();
    let lateDone: () => void = () => undefined;
    const caughtUp = new Promise<void>((resolve) => {
      lateDone = resolve;
    });
    const wanted = [...ledger.plants.keys()];
    const handledBy = (webhookId: string, how: string) => {
      lateHandled.set(webhookId, (lateHandled.get(webhookId) ?? 0) + 1);
      const plant = ledger.plants.get(webhookId);
      write(`  ↻ #${plant?.id ?? "?"} ${plant?.name ?? webhookId}: ${how}, verified, handled\n`);
      if (wanted.every((id) => lateHandled.has(id))) lateDone();
    };
    late.onLine((line) => {
      const event = readAppEvent(line);
      if (event?.event === "catch-up.event" && event.outcome === "received")
        handledBy(event.webhookId, "pulled from the events API");
      if (event?.event === "webhook.handled" && event.outcome === "received" && event.webhookId)
        handledBy(event.webhookId, "pushed by a retry");
    });
    let lateTimer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        caughtUp,
        interrupted,
        new Promise<never>((_, reject) => {
          lateTimer = setTimeout(
            () =>
              reject(
                new DemoTimeoutError(`The second receiver did not catch up within ${options.timeoutMs} ms`),
              ),
            options.timeoutMs,
          );
        }),
      ]);
    } finally {
      clearTimeout(lateTimer);
    }
    const lateCounts = wanted.map((id) => lateHandled.get(id) ?? 0);
    const catchUp: DemoCatchUp = {
      failedPushes,
      handledOnce: lateCounts.filter((n) => n === 1).length,
      duplicates: lateCounts.reduce((sum, n) => sum + Math.max(0, n - 1), 0),
      ok: lateCounts.every((n) => n === 1) && lateHandled.size === wanted.length,
    };
    write(
      catchUp.ok
        ? `The second receiver caught up: ${catchUp.handledOnce} of ${wanted.length} plants handled exactly once.\n`
        : `The second receiver handled ${catchUp.handledOnce} of ${wanted.length} plants exactly once (${catchUp.duplicates} duplicates).\n`,
    );
    // It has shown what it is for: unsubscribed (the store stops retrying it) and stopped, so that what
    // is left running is the pair the rest of the demo talks about.
    await unlessInterrupted(admin.removeEndpoint(lateEndpointId));
    apps.splice(apps.indexOf(late), 1);
    write(`Unsubscribed and stopped the second receiver (exit code ${await late.stop()}).\n\n`);
    const plants = [...ledger.plants.values()];
    const summary: DemoSummary = {
      plantsAdded: plants.length,
      plantsArrived: verdict.arrived,
      duplicates: verdict.duplicates,
      handlerCalls,
      attempts: plants.reduce((sum, plant) => sum + plant.attempts, 0),
      latencyMs: { p50: median(latencies), max: Math.max(0, ...latencies) },
      receiverUrl: receiver.url,
      storeUrl: store.url,
      plants: plants.map((plant) => ({
        id: plant.id ?? null,
        webhookId: plant.webhookId,
        attempts: plant.attempts,
        handlerCalls: ledger.handlerCalls(plant.webhookId),
        stored: plant.stored,
      })),
      catchUp,
      ok: verdict.ok && catchUp.ok,
    };
    write(
      summary.ok
        ? `All ${summary.plantsAdded} plants arrived exactly once (${summary.attempts} attempts, latency p50 ${summary.latencyMs.p50} ms, max ${summary.latencyMs.max} ms).\n`
        : `Only ${summary.plantsArrived} of ${summary.plantsAdded} plants arrived exactly once ` +
            `(${summary.duplicates} duplicate handler calls; the receiver counted ${handlerCalls} handler calls).\n`,
    );

    if (options.keep) {
      // Fresh links: the first ones may have been used already.
      const [liveLink, storeLink] = await links();
      write("\nBoth apps keep running. Open them in a browser:\n");
      write(`  the store's page      ${storeLink}\n`);
      write(`  the receiver's page   ${liveLink}\n`);
      write(
        "Each link signs one browser tab in, once, within 10 minutes (no token in the URL); after that, sign in\n" +
          "with the admin token or the read token printed above.\n",
      );
      write("Add more plants with:\n");
      write(`  pnpm sender plants add --name "Aloe vera" --tag succulent --db ${storeDb}\n`);
      write("Check the receiver against the contract (one row per case; exit 1 if one fails):\n");
      write(
        `  pnpm receiver check ${receiver.url}/plant/webhook --token ${receiverToken} --secret ${secret}\n`,
      );
      write(
        "Forward this store's deliveries to a receiver of your own on this machine, without subscribing it:\n",
      );
      write(
        `  pnpm sender listen --forward-to http://127.0.0.1:3000/plant/webhook --store ${store.url} --admin-token ${adminToken}\n`,
      );
      write(
        ownsDataDir
          ? "Press Ctrl-C to stop both (the temporary data directory is removed then).\n"
          : "Press Ctrl-C to stop both.\n",
      );
      watching = true;
      await aborted(signal);
    }
    return summary;
  } finally {
    const codes = await Promise.all(apps.map((app) => app.stop()));
    if (options.keep) write(`Stopped both apps (exit codes ${codes.join(", ")}).\n`);
    if (ownsDataDir) {
      rmSync(dataDir, { recursive: true, force: true });
      if (options.keep) write(`Removed ${dataDir}.\n`);
    }
  }
}
