import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunningApp } from "@plant-store/testing";
import { startPostgres, type TestPostgres, waitFor } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addEndpoint, adminToken, SOAK, startStore } from "./fixtures/pipe.js";

const KEYS = ["greenhouse-a", "greenhouse-b", "greenhouse-c"];
// The 200 a key: a run takes about 25 s, most of it the five store starts and two lease ends.
const PER_KEY = 200;

async function sigkill(app: RunningApp): Promise<void> {
  if (app.child.exitCode !== null || app.child.signalCode !== null) return;
  const exited = new Promise((resolve) => app.child.once("exit", resolve));
  app.child.kill("SIGKILL");
  await exited;
}

interface Request {
  key: string;
  n: number;
  ok: boolean;
  start: number;
  end: number;
}

describe("ordering keys across three plant-store serve processes on one PostgreSQL, with SIGKILLs and a failing receiver", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-pg-ordering-"));
  const apps: RunningApp[] = [];
  let postgres: TestPostgres;
  let receiver: Server;

  beforeAll(async () => {
    postgres = await startPostgres();
  });

  afterAll(async () => {
    for (const app of apps) await app.stop(2_000);
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("delivers every key's plants in the order they were added, one at a time, losing none, keys side by side", async () => {
    const db = await postgres.createDatabase();
    const secret = generateWebhookSecret();
    const token = "ordering-token";
    const verifier = new Webhook(secret);
    const requests: Request[] = [];
    let random = 4242;
    const nextRandom = () => {
      random = (random * 1103515245 + 12345) % 2147483648;
      return random / 2147483648;
    };
    // Answers after a short while; one request in six fails (503) at random.
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        verifier.verify(body, request.headers as Record<string, string>);
        const [key, n] = (JSON.parse(body) as { name: string }).name.split(" ") as [string, string];
        const entry: Request = { key, n: Number(n), ok: nextRandom() >= 1 / 6, start: Date.now(), end: 0 };
        requests.push(entry);
        setTimeout(() => {
          entry.end = Date.now();
          response.writeHead(entry.ok ? 200 : 503).end();
        }, 10);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    await addEndpoint(db, url, token, secret);
    const args = [
      ...["--db", db, "--retry-schedule", ["0", ...Array(30).fill("50ms")].join(",")],
      ...["--timeout", "500ms", "--lease", "1500ms", "--concurrency", "8", "--per-endpoint-concurrency", "8"],
    ];
    let stores: RunningApp[] = [];
    for (let index = 0; index < 3; index++) stores.push(await startStore(args));
    apps.push(...stores);

    // The plants of the three keys interleaved, added through the stores in turn.
    let kills = 0;
    for (let n = 0; n < PER_KEY; n++) {
      for (const key of KEYS) {
        const store = stores[(n + KEYS.indexOf(key)) % stores.length] as RunningApp;
        const response = await fetch(`${store.url}/plants`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${adminToken}`,
            "content-type": "application/json",
            "ordering-key": key,
          },
          body: JSON.stringify({ name: `${key} ${n}` }),
        });
        expect(response.status).toBe(201);
      }
      // Twice during the run, a store dies mid-flight and another starts in its place.
      if (n === Math.floor(PER_KEY / 3) || n === Math.floor((2 * PER_KEY) / 3)) {
        const victim = stores[kills % stores.length] as RunningApp;
        await sigkill(victim);
        kills += 1;
        const replacement = await startStore(args);
        apps.push(replacement);
        stores = stores.map((store) => (store === victim ? replacement : store));
      }
    }

    const delivered = (key: string) =>
      new Set(requests.filter((r) => r.key === key && r.ok).map((r) => r.n)).size;
    await waitFor(
      () => (KEYS.every((key) => delivered(key) === PER_KEY) ? true : undefined),
      SOAK ? 600_000 : 120_000,
      100,
    );
    expect(kills).toBe(2);
    for (const key of KEYS) {
      const sent = requests.filter((r) => r.key === key);
      // In queue order: a plant is never sent before the one added before it was answered 200 (a
      // resend of the same plant, after a failure or a killed store's lease, may come again).
      for (let i = 1; i < sent.length; i++) {
        const previous = sent[i - 1] as Request;
        const current = sent[i] as Request;
        expect(current.n, `${key} request ${i}`).toBeGreaterThanOrEqual(previous.n);
        if (current.n > previous.n) {
          expect(current.n, `${key} request ${i}`).toBe(previous.n + 1);
          expect(previous.ok, `${key} request ${i}`).toBe(true);
          // One at a time: it started after the one before was answered.
          expect(current.start, `${key} request ${i}`).toBeGreaterThanOrEqual(previous.end);
        }
      }
      expect(delivered(key)).toBe(PER_KEY);
    }
    // Different keys' deliveries overlapped in time.
    const overlapping = requests.some((a) =>
      requests.some((b) => a.key !== b.key && b.start < a.end && a.start < b.end),
    );
    expect(overlapping).toBe(true);
    process.stdout.write(
      `${JSON.stringify({ scenario: "postgres-ordering", keys: KEYS.length, perKey: PER_KEY, kills, requests: requests.length, failures: requests.filter((r) => !r.ok).length })}\n`,
    );
  });
});
