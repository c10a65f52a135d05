import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createNodeMiddleware } from "@plant-store/receiver";
import { createDeliveryClient, createRetryPolicy, createWorker, type Worker } from "@plant-store/sender";
import { waitFor } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, startCli } from "../fixtures/cli-in-process.js";
import { type RunningApi, startApi, startApiProcess } from "../fixtures/start-api.js";

// `plant-webhooks listen` against the webhook API mounted under /webhooks, embedded: the worker that
// delivers to the relay is the service's own (`createWorker` in this process, with the guard an
// embedding service gives it: public addresses only, the relay let through by endpoint id), and the
// message is enqueued by the service's own code, not through the API.
const receiverToken = "local-receiver-token";
const secret = generateWebhookSecret();
const bin = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));
let api: RunningApi;
let worker: Worker;
let receiver: Server;
let receiverUrl: string;
let flaked = false;
const handled: string[] = [];

interface Line {
  event: string;
  webhookId?: string;
  eventType?: string | null;
  status?: number | null;
  error?: string | null;
  [key: string]: unknown;
}

async function operator<T>(method: string, path: string): Promise<T> {
  const answer = await fetch(`${api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${api.operatorToken}` },
  });
  return (await answer.json()) as T;
}
const endpointIds = async () =>
  (await operator<{ endpoints: Array<{ id: number }> }>("GET", "/endpoints")).endpoints.map((e) => e.id);

beforeAll(async () => {
  receiver = createServer(
    createNodeMiddleware({
      tokens: [receiverToken],
      secrets: [secret],
      onNewPlant: (plant, delivery) => {
        if (plant.name === "Flaky fern" && !flaked) {
          flaked = true;
          throw new Error("the flaky fern's first try fails");
        }
        handled.push(delivery.webhookId);
      },
    }),
  );
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/plant/webhook`;
  // Public addresses only, as a service's worker has it: the listen relay gets through by endpoint id.
  api = await startApi({ privateTargets: false, wake: () => worker?.wake() });
  worker = createWorker({
    outbox: api.outbox,
    client: createDeliveryClient({ timeoutMs: 5000 }),
    ssrfGuard: api.ssrfGuard,
    policy: createRetryPolicy({ schedule: [0, 100, 100] }),
    pollIntervalMs: 100,
  });
  worker.start();
});

afterAll(async () => {
  await worker?.stop();
  await api?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("plant-webhooks listen, the worker embedded in the service", () => {
  it("forwards each delivery to the local receiver, prints one JSON line per delivery with its answer's status, records the answers, and removes its endpoint when stopped", async () => {
    const listening = startCli(
      "listen",
      "--api",
      api.url,
      "--token",
      api.operatorToken,
      "--forward-to",
      receiverUrl,
      "--receiver-token",
      receiverToken,
      "--receiver-secret",
      secret,
      "--event-type",
      "newPlant",
      "--json",
    );
    const ready = JSON.parse(await listening.line((l) => l.includes('"listen.ready"'))) as Line;
    const endpointId = ready.endpointId as number;
    expect(ready).toStrictEqual({
      event: "listen.ready",
      session: expect.stringMatching(/^lst_[0-9a-f]{32}$/),
      endpointId,
      endpointUrl: `${api.url}/relay/${ready.session}`,
      forwardTo: receiverUrl,
      eventTypes: ["newPlant"],
    });
    // The temporary endpoint receives the event types asked for; the API never knew the receiver.
    const { endpoint } = await operator<{ endpoint: { eventTypes: string[]; url: string } }>(
      "GET",
      `/endpoints/${endpointId}`,
    );
    expect(endpoint.eventTypes).toStrictEqual(["newPlant"]);
    expect(endpoint.url).not.toContain(receiverUrl);

    // The service's own code enqueues; its own worker delivers, to the relay, which the guard refuses
    // for every other private address.
    const sent = [];
    for (const [id, name] of [
      [1, "Monstera deliciosa"],
      [2, "Flaky fern"],
    ] as const)
      sent.push((await api.outbox.enqueue({ eventType: "newPlant", payload: { id, name } })).webhookId);
    const [monstera, fern] = sent as [string, string];
    await waitFor(() => (handled.length === 2 ? true : undefined), 20_000);
    expect(handled).toStrictEqual([monstera, fern]);

    const lines = () => listening.lines().map((line) => JSON.parse(line) as Line);
    const printed = (webhookId: string) =>
      lines()
        .filter((line) => line.webhookId === webhookId)
        .map(({ event, eventType, status, error }) => ({ event, eventType, status, error }));
    await waitFor(() => (printed(monstera).length === 1 ? true : undefined));
    expect(printed(monstera)).toStrictEqual([
      { event: "listen.delivery", eventType: "newPlant", status: 200, error: null },
    ]);
    // One line per delivery the relay handed over: the receiver's 500, then the retry's 200 (printed
    // once its answer is back, which may be after the receiver's handler ran).
    await waitFor(() => (printed(fern).length === 2 ? true : undefined));
    expect(printed(fern)).toStrictEqual([
      { event: "listen.delivery", eventType: "newPlant", status: 500, error: null },
      { event: "listen.delivery", eventType: "newPlant", status: 200, error: null },
    ]);
    expect(lines().find((line) => line.webhookId === monstera)).toMatchObject({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      durationMs: expect.any(Number),
    });

    // The local receiver's own answers are in the service's attempt log.
    const { deliveries } = await operator<{
      deliveries: Array<{ id: number; webhookId: string; status: string }>;
    }>("GET", `/deliveries?endpointId=${endpointId}`);
    const fernDelivery = deliveries.find((d) => d.webhookId === fern) as { id: number };
    const { attempts } = await operator<{
      attempts: Array<{ status: number; responseBody: string; outcome: string }>;
    }>("GET", `/deliveries/${fernDelivery.id}`);
    expect(attempts.map((a) => [a.status, a.responseBody, a.outcome])).toStrictEqual([
      [500, '{"error":500,"message":"Internal error"}', "retrying"],
      [200, '{"received":true,"duplicate":false}', "delivered"],
    ]);

    const ended = await listening.stop();
    expect(ended.code).toBe(0);
    expect(ended.err).toBe("");
    expect(lines().at(-1)).toStrictEqual({ event: "listen.stopped" });
    expect(await endpointIds()).not.toContain(endpointId);
  });

  it("prints status null and the error's code when the local receiver does not answer, and the attempt log records a 502", async () => {
    const port = await closedPort();
    const listening = startCli(
      "listen",
      "--api",
      api.url,
      "--token",
      api.operatorToken,
      "--forward-to",
      `http://127.0.0.1:${port}/webhook`,
      "--json",
    );
    const ready = JSON.parse(await listening.line((l) => l.includes('"listen.ready"'))) as Line;
    // Nothing given: the API generated what the receiver must accept, shown once.
    expect(ready.token).toMatch(/^lst_token_/);
    expect(ready.secret).toMatch(/^whsec_/);
    const { webhookId } = await api.outbox.enqueue({
      eventType: "newPlant",
      payload: { id: 3, name: "Pilea" },
    });
    const line = JSON.parse(await listening.line((l) => l.includes(webhookId))) as Line;
    expect(line).toMatchObject({
      event: "listen.delivery",
      webhookId,
      eventType: "newPlant",
      status: null,
      error: "ECONNREFUSED",
    });
    const { deliveries } = await operator<{ deliveries: Array<{ id: number; webhookId: string }> }>(
      "GET",
      `/deliveries?endpointId=${ready.endpointId}`,
    );
    const delivery = deliveries.find((d) => d.webhookId === webhookId) as { id: number };
    const attempt = await waitFor(async () => {
      const { attempts } = await operator<{ attempts: Array<{ status: number; responseBody: string }> }>(
        "GET",
        `/deliveries/${delivery.id}`,
      );
      return attempts[0];
    });
    expect(attempt.status).toBe(502);
    expect(attempt.responseBody).toContain("could not reach its local receiver (ECONNREFUSED)");
    expect((await listening.stop()).code).toBe(0);
  });

  it("runs as the plant-webhooks command: prints lines a person reads, never a plant, and stops on SIGINT removing its endpoint", async () => {
    const child = spawn(
      process.execPath,
      [
        bin,
        "listen",
        "--forward-to",
        receiverUrl,
        "--receiver-token",
        receiverToken,
        "--receiver-secret",
        secret,
      ],
      {
        env: { ...process.env, PLANT_WEBHOOKS_API: api.url, PLANT_WEBHOOKS_TOKEN: api.operatorToken },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const lines: string[] = [];
    createInterface({ input: child.stdout }).on("line", (line) => lines.push(line));
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
    await waitFor(() => (lines.some((l) => l.startsWith("Listening:")) ? true : undefined), 20_000);
    expect(lines.slice(0, 2)).toStrictEqual([
      expect.stringMatching(
        new RegExp(
          `^Listening: temporary endpoint #(\\d+) of ${api.url} forwards every event type to ${receiverUrl}$`,
        ),
      ),
      "  Ctrl-C stops listening and removes the endpoint.",
    ]);
    const endpointId = Number(/#(\d+)/.exec(lines[0] as string)?.[1]);
    const { webhookId } = await api.outbox.enqueue({
      eventType: "newPlant",
      payload: { id: 4, name: "Aloe" },
    });
    const printed = await waitFor(() => lines.find((l) => l.includes(webhookId)), 20_000);
    expect(printed).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d newPlant ${webhookId} → 200 in \\d+ ms$`));
    expect(lines.join("\n")).not.toContain("plant ");
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(stderr).toBe("");
    expect(lines.at(-1)).toBe("Stopped; the temporary endpoint is removed.");
    expect(await endpointIds()).not.toContain(endpointId);
  });

  it("subscribes its endpoint to the event types asked for only: a message of another type is not queued for it", async () => {
    const listening = startCli(
      "listen",
      "--api",
      api.url,
      "--token",
      api.operatorToken,
      "--forward-to",
      receiverUrl,
      "--event-type",
      "endpoint.*",
      "--json",
    );
    const ready = JSON.parse(await listening.line((l) => l.includes('"listen.ready"'))) as Line;
    expect(ready.eventTypes).toStrictEqual(["endpoint.*"]);
    // Another endpoint receives every type, so the message is queued for someone; the outbox fans a
    // message out when it is queued, so no delivery for the listen endpoint now means none ever.
    const other = await api.outbox.addEndpoint({ url: receiverUrl, token: receiverToken, secrets: [secret] });
    const { webhookId } = await api.outbox.enqueue({
      eventType: "newPlant",
      payload: { id: 6, name: "Hoya" },
    });
    const queuedFor = (await api.outbox.listDeliveries({})).filter((d) => d.webhookId === webhookId);
    expect(queuedFor.length).toBeGreaterThan(0);
    expect(queuedFor.map((d) => d.endpointId)).toStrictEqual([other.id]);
    expect((await listening.stop()).code).toBe(0);
    await api.outbox.removeEndpoint(other.id);
  });

  it("says why it cannot listen: a wrong token, a subscriber's token, a URL without the prefix, event types the API refuses", async () => {
    const listen = (apiUrl: string, token: string, ...more: string[]) =>
      cli("listen", "--api", apiUrl, "--token", token, "--forward-to", receiverUrl, ...more);
    expect(await listen(api.url, "not-the-token")).toStrictEqual({
      code: 1,
      out: "",
      err: "The API refused to open a listen session: 401 Missing or wrong token (Authorization: Bearer <token>) (the token is wrong)\n",
    });
    const { token } = await api.outbox.addSubscriber({ name: "A customer" });
    const subscriber = await listen(api.url, token);
    expect(subscriber.code).toBe(1);
    expect(subscriber.err).toBe(
      "The API refused to open a listen session: 404 Route not found (no listen route at this URL: is it the API's, prefix included? a subscriber's token is answered 404 where only an operator may listen)\n",
    );
    const origin = await listen(new URL(api.url).origin, api.operatorToken);
    expect(origin.code).toBe(1);
    expect(origin.err).toMatch(/^The API refused to open a listen session: 404 <h1>Not found<\/h1>/);
    const before = await endpointIds();
    const refused = await listen(api.url, api.operatorToken, "--event-type", "order.created");
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(
      /^The API refused to open a listen session: 400 Invalid listen session: eventTypes\.0: /,
    );
    // Refused before any endpoint was added: none left behind.
    expect(await endpointIds()).toStrictEqual(before);
    const settings = await cli("listen", "--forward-to", "ftp://x", "--receiver-token", "a b");
    expect(settings).toStrictEqual({
      code: 2,
      out: "",
      err: [
        "Invalid settings:",
        "  --api (PLANT_WEBHOOKS_API): is required",
        "  --token (PLANT_WEBHOOKS_TOKEN): is required",
        "  --forward-to (PLANT_WEBHOOKS_FORWARD_TO): must be an http:// or https:// URL",
        "  --receiver-token (PLANT_WEBHOOKS_RECEIVER_TOKEN): must be visible ASCII (no spaces, control or non-ASCII characters)",
        "",
      ].join("\n"),
    });
  });
});

describe("plant-webhooks listen, the worker in the API's own process", () => {
  it("forwards what that process's worker delivers, a message sent with messages send, and removes its endpoint", async () => {
    const served = await startApiProcess();
    try {
      const as = ["--api", served.url, "--token", served.operatorToken];
      const listening = startCli(
        "listen",
        ...as,
        "--forward-to",
        receiverUrl,
        "--receiver-token",
        receiverToken,
        "--receiver-secret",
        secret,
        "--json",
      );
      const ready = JSON.parse(await listening.line((l) => l.includes('"listen.ready"'))) as Line;
      expect(ready.endpointUrl).toBe(`${served.url}/relay/${ready.session}`);
      const sent = await cli(
        "messages",
        "send",
        ...as,
        "--event-type",
        "newPlant",
        "--payload",
        '{"id":5,"name":"Ficus lyrata"}',
        "--json",
      );
      expect(sent.code).toBe(0);
      const { webhookId } = (JSON.parse(sent.out) as { message: { webhookId: string } }).message;
      const line = JSON.parse(await listening.line((l) => l.includes(webhookId))) as Line;
      expect(line).toMatchObject({
        event: "listen.delivery",
        webhookId,
        eventType: "newPlant",
        status: 200,
        error: null,
      });
      expect(handled).toContain(webhookId);
      const shown = await waitFor(async () => {
        const run = await cli("deliveries", "list", ...as, "--endpoint", String(ready.endpointId), "--json");
        const { deliveries } = JSON.parse(run.out) as {
          deliveries: Array<{ status: string; lastStatus: number }>;
        };
        return deliveries[0]?.status === "delivered" ? deliveries : undefined;
      });
      expect(shown.map((d) => [d.status, d.lastStatus])).toStrictEqual([["delivered", 200]]);
      expect((await listening.stop()).code).toBe(0);
      const { out } = await cli("endpoints", "list", ...as);
      expect(out).toBe("No endpoints.\n");
    } finally {
      await served.close();
    }
  });
});
