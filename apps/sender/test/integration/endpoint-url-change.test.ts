import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNodeMiddleware } from "@plant-store/receiver";
import { callApi } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveCommand } from "../../src/commands/serve-command.js";
import { parseConfig } from "../../src/parse-config.js";
import { type RunningStore, runServe } from "../../src/run-serve.js";
import { ServeConfigSchema } from "../../src/serve-config.js";
import { expectDocumented } from "../fixtures/expect-documented.js";

const adminToken = "endpoint-url-admin-token-0123";
const token = "receiver-token-0123456789";
const secret = generateWebhookSecret();

/** A loopback server whose answer can be swapped; it counts every request and the plants handled. */
interface Receiver {
  url: string;
  requests: number;
  plants: string[];
  /** What it answers: a receiver built with `@plant-store/receiver` (handshake included) by default. */
  listener: RequestListener;
  server: Server;
}

async function startReceiver(): Promise<Receiver> {
  const receiver = { requests: 0, plants: [] as string[] } as Receiver;
  const middleware = createNodeMiddleware({
    tokens: [token],
    secrets: [secret],
    onNewPlant: (plant) => {
      receiver.plants.push(plant.name);
    },
  });
  receiver.listener = (request, response) => void middleware(request, response);
  receiver.server = createServer((request, response) => {
    receiver.requests += 1;
    receiver.listener(request, response);
  });
  await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/plant/webhook`;
  return receiver;
}

/** A URL somebody else owns: it answers every request, the handshake included, with a 404. */
const stranger: RequestListener = (request, response) =>
  request.resume().on("end", () => response.writeHead(404, { "content-type": "application/json" }).end("{}"));

/**
 * `PATCH /endpoints/{id}` with a `url`, against `serve`'s app and worker in this process and real loopback
 * receivers: what moves is where deliveries go, and a subscriber's endpoint must prove again that its
 * new URL wants them.
 */
describe("moving an endpoint to another URL", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-endpoint-url-"));
  const receivers: Receiver[] = [];
  let store: RunningStore;

  beforeAll(async () => {
    for (let n = 0; n < 4; n++) receivers.push(await startReceiver());
    const defaults = Object.fromEntries(
      serveCommand().options.map((option) => [option.attributeName(), option.defaultValue]),
    );
    const config = parseConfig(ServeConfigSchema, {
      ...defaults,
      db: join(dir, "store.db"),
      port: "0",
      adminToken,
      allowPrivateTargets: true,
      allowPrivateTargetsForSubscribers: true,
      // A failed delivery waits an hour for its next attempt: the test retries it by hand.
      retrySchedule: "0,1h",
    });
    store = await runServe(config, pino({ level: "silent" }));
  });

  afterAll(async () => {
    await store?.stop();
    for (const { server } of receivers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (method: string, path: string, bearer: string, body?: unknown) =>
    callApi(store.url, method, path, { token: bearer, body });
  const addPlant = async (name: string) =>
    expect((await call("POST", "/plants", adminToken, { name })).status).toBe(201);

  it("sends the operator's next attempts to the new URL, a delivery queued before the move included", async () => {
    const [old, next] = receivers as [Receiver, Receiver];
    // The old URL is failing: its first attempt is a 503, and the next would be in an hour.
    old.listener = (request, response) => request.resume().on("end", () => response.writeHead(503).end());
    const added = await call("POST", "/endpoints", adminToken, { url: old.url, token, secrets: [secret] });
    const { id } = added.body.endpoint;
    await addPlant("Fern");
    await expect.poll(() => old.requests, { timeout: 5_000 }).toBe(1);
    const [pending] = (await call("GET", `/deliveries?endpointId=${id}`, adminToken)).body.deliveries;
    await expect
      .poll(async () => (await call("GET", `/deliveries/${pending.id}`, adminToken)).body.delivery.status)
      .toBe("pending");

    const moved = await call("PATCH", `/endpoints/${id}`, adminToken, { url: next.url });
    expect(moved.status).toBe(200);
    expectDocumented("patch", "/endpoints/{id}", moved.status, moved.body);
    expect(moved.body.endpoint).toMatchObject({ id, url: next.url, verified: true });

    // The delivery queued at the old URL goes to the new one, keeping its history; new plants follow it.
    expect((await call("POST", `/deliveries/${pending.id}/retry`, adminToken)).status).toBe(200);
    await addPlant("Moss");
    await expect.poll(() => [...next.plants].sort(), { timeout: 5_000 }).toEqual(["Fern", "Moss"]);
    const shown = await call("GET", `/deliveries/${pending.id}`, adminToken);
    expect(shown.body.delivery).toMatchObject({ status: "delivered", attempts: 2 });
    expect(shown.body.attempts.map((attempt: { status: number }) => attempt.status)).toEqual([503, 200]);
    expect(old.requests).toBe(1);
    expect(old.plants).toEqual([]);
  });

  it("sends a subscriber's moved endpoint nothing until its new URL answers the handshake", async () => {
    const [, operator, first, second] = receivers as [Receiver, Receiver, Receiver, Receiver];
    const subscriber = await call("POST", "/subscribers", adminToken, { name: "Moving Plants" });
    const bearer = subscriber.body.token as string;
    const added = await call("POST", "/endpoints", bearer, { url: first.url, token, secrets: [secret] });
    expect(added.body.endpoint.verified).toBe(true);
    const { id } = added.body.endpoint;
    await addPlant("Ivy");
    await expect.poll(() => first.plants, { timeout: 5_000 }).toEqual(["Ivy"]);

    // The new URL is not (yet) a receiver that wants these webhooks.
    const deployed = second.listener;
    second.listener = stranger;
    const moved = await call("PATCH", `/endpoints/${id}`, bearer, { url: second.url });
    expect(moved.status).toBe(200);
    expectDocumented("patch", "/endpoints/{id}", moved.status, moved.body);
    expect(moved.body.endpoint).toMatchObject({ id, url: second.url, verified: false, verifiedAt: null });

    // Queued for it (an example is queued whether or not it is verified), and not sent: it waits.
    expect((await call("POST", `/endpoints/${id}/send-example`, bearer)).status).toBe(202);
    // Once the operator's endpoint (the first test's, at `operator`) has Palm, the worker is past both.
    await addPlant("Palm");
    await expect.poll(() => operator.plants, { timeout: 5_000 }).toContain("Palm");
    expect(second.requests).toBe(0);
    expect(first.plants).toEqual(["Ivy"]);
    const refused = await call("POST", `/endpoints/${id}/verify`, bearer);
    // The subscriber learns it did not answer as the contract says; the 404 is the operator's to see.
    expect(refused.body.verification).toMatchObject({ verified: false, reason: "no-valid-answer" });
    expect(refused.body.verification).not.toHaveProperty("status");
    expect(second.requests).toBe(1);

    // The new URL's owner deploys the receiver: the handshake passes, and plants from now on arrive.
    second.listener = deployed;
    const verified = await call("POST", `/endpoints/${id}/verify`, bearer);
    expect(verified.body.endpoint.verified).toBe(true);
    await addPlant("Rose");
    await expect.poll(() => [...second.plants].sort(), { timeout: 5_000 }).toEqual(["Example plant", "Rose"]);
    expect(first.plants).toEqual(["Ivy"]);
  });
});
