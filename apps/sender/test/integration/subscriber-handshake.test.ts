import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNodeMiddleware } from "@plant-store/receiver";
import { callApi } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StoreProcess, startStore } from "../fixtures/store-process.js";

const adminToken = "handshake-admin-token-0123";

/**
 * The verification handshake end to end: `serve` as its own process, a subscriber's endpoint whose
 * server first answers the handshake with a 404 (a URL somebody else owns): nothing is queued for it;
 * then a receiver built with
 * `@plant-store/receiver`, which answers it out of the box.
 */
describe("a subscriber's endpoint receives nothing until its server answers the handshake", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-handshake-"));
  const token = "receiver-token-0123456789";
  const secret = generateWebhookSecret();
  const received: string[] = [];
  let requests = 0;
  let server: Server;
  let url: string;
  let store: StoreProcess;
  // What the endpoint's URL answers: a stranger's server at first.
  const stranger: RequestListener = (_request, response) => {
    requests += 1;
    response.writeHead(404, { "content-type": "application/json" }).end('{"error":404}');
  };
  const receiver = createNodeMiddleware({
    tokens: [token],
    secrets: [secret],
    onNewPlant: (plant) => {
      received.push(plant.name);
    },
  });
  let listener: RequestListener = stranger;
  // The operator's own endpoint on the same server: what it receives shows the worker's turns.
  let operatorReceived = 0;

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url !== "/operator") return listener(request, response);
      operatorReceived += 1;
      request.resume().on("end", () => response.writeHead(204).end());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/plant/webhook`;
    store = await startStore(
      [
        "--db",
        join(dir, "store.db"),
        "--allow-private-targets",
        "--allow-private-targets-for-subscribers",
        "--retry-schedule",
        "0,50ms",
      ],
      { PLANT_STORE_ADMIN_TOKEN: adminToken },
    );
  });

  afterAll(async () => {
    await store?.kill();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (method: string, path: string, bearer: string, body?: unknown) =>
    callApi(store.url, method, path, { token: bearer, body });

  const deliveriesOf = async (bearer: string) =>
    (await call("GET", "/deliveries", bearer)).body.deliveries as Array<{ status: string }>;

  it("holds New Plant deliveries back while the handshake fails, and delivers them once it passes", async () => {
    const added = await call("POST", "/subscribers", adminToken, { name: "Acme Plants" });
    const subscriberToken = added.body.token as string;
    const endpoint = await call("POST", "/endpoints", subscriberToken, { url, token, secrets: [secret] });
    expect(endpoint.status).toBe(201);
    expect(endpoint.body.endpoint.verified).toBe(false);
    // The subscriber learns that the URL did not answer as the contract says, not what it answered.
    expect(endpoint.body.verification).toMatchObject({ verified: false, reason: "no-valid-answer" });
    expect(endpoint.body.verification).not.toHaveProperty("status");
    expect(requests).toBe(1);
    const operatorUrl = url.replace("/plant/webhook", "/operator");
    expect((await call("POST", "/endpoints", adminToken, { url: operatorUrl, token })).status).toBe(201);

    // Plants added meanwhile are not even queued for it: an unverified URL is no one's to fill up.
    for (const name of ["Fern", "Moss"])
      expect((await call("POST", "/plants", adminToken, { name })).status).toBe(201);
    // Once the operator's endpoint has both, the worker has claimed past the subscriber's deliveries.
    await expect.poll(() => operatorReceived, { timeout: 15_000 }).toBe(2);
    expect(requests).toBe(1);
    expect(await deliveriesOf(subscriberToken)).toEqual([]);

    // The URL's owner deploys a receiver built with @plant-store/receiver: it answers the handshake.
    listener = (request, response) => {
      requests += 1;
      void receiver(request, response);
    };
    const again = await call("POST", `/endpoints/${endpoint.body.endpoint.id}/verify`, subscriberToken);
    expect(again.body.verification).toMatchObject({ verified: true, status: 200 });
    expect(again.body.endpoint.verified).toBe(true);
    // From now on it receives New Plant like any endpoint; the handshake never reached the handler.
    for (const name of ["Ivy", "Palm"])
      expect((await call("POST", "/plants", adminToken, { name })).status).toBe(201);
    await expect.poll(() => [...received].sort(), { timeout: 15_000 }).toEqual(["Ivy", "Palm"]);
    await expect
      .poll(async () => (await deliveriesOf(subscriberToken)).map((delivery) => delivery.status))
      .toEqual(["delivered", "delivered"]);
    // What it was not sent before can be asked for: a replay since the start queues all four again,
    const replayed = await call("POST", "/replay", subscriberToken, {
      endpointId: endpoint.body.endpoint.id,
      since: "2020-01-01T00:00:00Z",
    });
    // with the same webhook ids, so the receiver hands the two it already had to nobody again.
    expect(replayed.body.queued).toBe(4);
    await expect
      .poll(() => [...received].sort(), { timeout: 15_000 })
      .toEqual(["Fern", "Ivy", "Moss", "Palm"]);
  });
});
