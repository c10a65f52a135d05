import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNodeMiddleware } from "@plant-store/receiver";
import {
  createDeliveryClient,
  createRetryPolicy,
  createSsrfGuard,
  createWorker,
  type Worker,
} from "@plant-store/sender";
import { waitFor } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli } from "../fixtures/cli-in-process.js";
import { type RunningApi, startApi } from "../fixtures/start-api.js";

// The commands against the webhook API over loopback HTTP, mounted under /webhooks, on a real SQLite
// outbox; a worker in this process delivers to a real receiver on another port.
const receiverToken = "local-receiver-token";
const secret = generateWebhookSecret();
let api: RunningApi;
let worker: Worker;
let receiver: Server;
let receiverUrl: string;
let dir: string;
/** Plants the receiver's handler ran for. */
const handled: Array<{ id: number; name: string }> = [];

/** `--api <url> --token <operator's>` with the rest. */
const asOperator = (...argv: string[]) => cli(...argv, "--api", api.url, "--token", api.operatorToken);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "plant-webhooks-commands-"));
  receiver = createServer(
    createNodeMiddleware({
      tokens: [receiverToken],
      secrets: [secret],
      onNewPlant: (plant) => {
        handled.push({ id: plant.id, name: plant.name });
      },
    }),
  );
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/plant/webhook`;
  api = await startApi({ wake: () => worker?.wake() });
  worker = createWorker({
    outbox: api.outbox,
    client: createDeliveryClient({ timeoutMs: 5000 }),
    // The receiver is on this machine: this worker's guard lets the operator's loopback endpoints through.
    ssrfGuard: createSsrfGuard({ allowPrivateTargets: true }),
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
  await rm(dir, { recursive: true, force: true });
});

describe("plant-webhooks endpoints", () => {
  it("adds, lists, shows, updates, verifies and removes an endpoint through the API under its prefix", async () => {
    const added = await asOperator(
      "endpoints",
      "add",
      "--url",
      receiverUrl,
      "--endpoint-token",
      receiverToken,
      "--secret",
      secret,
      "--json",
    );
    expect(added).toMatchObject({ code: 0, err: "" });
    const { endpoint } = JSON.parse(added.out) as { endpoint: { id: number; url: string } };
    expect(endpoint).toMatchObject({ url: receiverUrl, status: "active", eventTypes: null, secretCount: 1 });
    // The secret was given, so none is shown; the token never is.
    expect(added.out).not.toContain(secret);
    expect(added.out).not.toContain(receiverToken);

    const listed = await asOperator("endpoints", "list");
    expect(listed).toStrictEqual({
      code: 0,
      out: `#${endpoint.id} active ${receiverUrl} receives every event type\n`,
      err: "",
    });
    // --json prints the API's answer as it came.
    const direct = await fetch(`${api.url}/endpoints/${endpoint.id}`, {
      headers: { authorization: `Bearer ${api.operatorToken}` },
    });
    expect(
      JSON.parse((await asOperator("endpoints", "show", String(endpoint.id), "--json")).out),
    ).toStrictEqual(await direct.json());
    expect((await asOperator("endpoints", "show", String(endpoint.id))).out).toContain(
      `Endpoint #${endpoint.id}\n  url:          ${receiverUrl}\n  status:       active\n  receives:     every event type\n`,
    );

    const updated = await asOperator(
      "endpoints",
      "update",
      String(endpoint.id),
      "--event-type",
      "newPlant",
      "--rate-limit",
      "50",
    );
    expect(updated.code).toBe(0);
    expect(updated.out).toContain("  receives:     newPlant\n");
    expect(updated.out).toContain("  rate limit:   50/s\n");
    const unlimited = await asOperator(
      "endpoints",
      "update",
      String(endpoint.id),
      "--no-rate-limit",
      "--all-event-types",
      "--json",
    );
    expect(JSON.parse(unlimited.out).endpoint).toMatchObject({ rateLimit: null, eventTypes: null });

    // The handshake goes to the receiver, which proves it holds the endpoint's secret.
    expect(await asOperator("endpoints", "verify", String(endpoint.id))).toStrictEqual({
      code: 0,
      out: `Endpoint #${endpoint.id}: Handshake: verified (the URL answered 200)\n`,
      err: "",
    });

    // A second endpoint whose receiver does not hold its (generated) secret: shown once, and verify fails.
    const other = await asOperator(
      "endpoints",
      "add",
      "--url",
      `${receiverUrl}?other`,
      "--endpoint-token",
      receiverToken,
    );
    expect(other.code).toBe(0);
    const otherId = /^Added endpoint #(\d+) /.exec(other.out)?.[1] as string;
    expect(other.out).toMatch(/\nSigning secret \(shown once: give it to the receiver\): whsec_\S+\n$/);
    const unverified = await asOperator("endpoints", "verify", otherId);
    expect(unverified.code).toBe(1);
    expect(unverified.out).toMatch(new RegExp(`^Endpoint #${otherId}: Handshake: not verified \\(`));

    for (const id of [String(endpoint.id), otherId])
      expect(await asOperator("endpoints", "remove", id)).toStrictEqual({
        code: 0,
        out: `Removed endpoint #${id}\n`,
        err: "",
      });
    expect((await asOperator("endpoints", "list")).out).toBe("No endpoints.\n");
    const gone = await asOperator("endpoints", "show", String(endpoint.id));
    expect(gone).toStrictEqual({
      code: 1,
      out: "",
      err: `GET /webhooks/endpoints/${endpoint.id} answered 404: Endpoint not found\n`,
    });
  });

  it("prints the API's refusal of an input with its message and exit 1, and refuses unusable flags itself with exit 2", async () => {
    const refused = await asOperator("endpoints", "add", "--url", "ftp://x.example", "--endpoint-token", "t");
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/^POST \/webhooks\/endpoints answered 400: Invalid endpoint: url: /);

    const flags = await cli("endpoints", "update", "x1", "--rate-limit", "many");
    expect(flags).toStrictEqual({
      code: 2,
      out: "",
      err: [
        "Invalid settings:",
        "  --api (PLANT_WEBHOOKS_API): is required",
        "  --token (PLANT_WEBHOOKS_TOKEN): is required",
        "  <id>: must be decimal digits, 1 or more",
        "  --rate-limit: must be a whole number of deliveries a second",
        "",
      ].join("\n"),
    });
  });
});

describe("plant-webhooks endpoints: filter, headers, signature header names", () => {
  it("adds an endpoint with --filter, --header and --signature-headers svix, delivers it the tropical plants only, lists the filter and what it excluded, and takes them off with update", async () => {
    const apiKey = "gateway-key-cli-never-shown";
    const filter = 'payload.tag == "tropical"';
    const added = await asOperator(
      "endpoints",
      "add",
      "--url",
      `${receiverUrl}?filtered`,
      "--endpoint-token",
      receiverToken,
      "--secret",
      secret,
      "--event-type",
      "newPlant",
      "--filter",
      filter,
      "--header",
      `x-api-key: ${apiKey}`,
      "--header",
      "X-Team:plants",
      "--signature-headers",
      "svix",
      "--json",
    );
    expect(added).toMatchObject({ code: 0, err: "" });
    expect(added.out).not.toContain(apiKey);
    const { endpoint } = JSON.parse(added.out) as { endpoint: { id: number } };
    expect(endpoint).toMatchObject({
      filter,
      filteredCount: 0,
      signatureHeaders: "svix",
      headers: { "x-api-key": "********", "X-Team": "********" },
    });
    // The receiver library reads svix-* names as it reads webhook-* ones.
    const queued: string[] = [];
    for (const [id, name, tag] of [
      [9101, "Filtered Monstera", "tropical"],
      [9102, "Filtered Ficus", "indoor"],
    ] as const)
      queued.push(
        (await api.outbox.enqueue({ eventType: "newPlant", payload: { id, name, tag } })).webhookId,
      );
    worker.wake();
    await waitFor(() => (handled.some((plant) => plant.id === 9101) ? true : undefined));
    const listed = await asOperator("endpoints", "list");
    expect(listed.out).toContain(
      `#${endpoint.id} active ${receiverUrl}?filtered receives newPlant filter ${filter} (1 excluded)\n`,
    );
    const shown = await asOperator("endpoints", "show", String(endpoint.id));
    expect(shown.out).toContain(`  filter:       ${filter} (1 excluded)\n`);
    expect(shown.out).toContain("  signature:    svix (svix-* headers)\n");
    expect(shown.out).toContain("  headers:      x-api-key, X-Team\n");
    expect(shown.out).not.toContain(apiKey);
    expect(handled.some((plant) => plant.id === 9102)).toBe(false);
    // Which message it excluded: the Ficus, by the webhook id it was queued with.
    const excluded = await asOperator("endpoints", "excluded", String(endpoint.id), "--json");
    const page = JSON.parse(excluded.out) as { messages: Array<{ webhookId: string }>; next: string };
    expect(page.messages.map((message) => message.webhookId)).toStrictEqual([queued[1]]);
    const text = await asOperator("endpoints", "excluded", String(endpoint.id));
    expect(text.out).toMatch(
      new RegExp(`  newPlant  ${page.messages[0]?.webhookId}\nMore: --after ${page.next}\n$`),
    );
    const after = await asOperator("endpoints", "excluded", String(endpoint.id), "--after", page.next);
    expect(after, JSON.stringify(after)).toMatchObject({ code: 0, out: "No excluded messages.\n" });
    // Left for the tests below, which count the plants handled.
    handled.splice(0, handled.length, ...handled.filter((plant) => plant.id !== 9101));

    const updated = await asOperator(
      "endpoints",
      "update",
      String(endpoint.id),
      "--no-filter",
      "--no-header",
      "--signature-headers",
      "standard",
    );
    expect(updated).toMatchObject({ code: 0, err: "" });
    expect(updated.out).toContain("  filter:       none (1 excluded)\n");
    expect(updated.out).toContain("  signature:    standard (webhook-* headers)\n");
    expect(updated.out).toContain("  headers:      none\n");
    expect((await asOperator("endpoints", "list")).out).toContain(
      `#${endpoint.id} active ${receiverUrl}?filtered receives newPlant (1 excluded)\n`,
    );
    expect((await asOperator("endpoints", "remove", String(endpoint.id))).code).toBe(0);
  });

  it("prints the API's refusal of a filter (with where it is) and of a header, and refuses a --header without a value itself", async () => {
    const add = (...flags: string[]) =>
      asOperator("endpoints", "add", "--url", receiverUrl, "--endpoint-token", receiverToken, ...flags);
    const malformed = await add("--filter", 'payload.tag == "tropical" &&');
    expect(malformed.code).toBe(1);
    expect(malformed.err).toMatch(
      /^POST \/webhooks\/endpoints answered 400: filter: syntax error.* \(at 1:\d+\)\n$/,
    );
    const typed = await add("--event-type", "newPlant", "--filter", 'payload.id == "x"');
    expect(typed.err).toMatch(/answered 400: filter: payload\.id is a number.* \(at 1:15\)\n$/);
    const host = await add("--header", "Host: elsewhere.example");
    expect(host.code).toBe(1);
    expect(host.err).toContain("answered 400: Invalid endpoint: headers.Host: Host is written by the sender");
    expect(host.err).not.toContain("elsewhere.example");
    const style = await add("--signature-headers", "stripe");
    expect(style.code).not.toBe(0);
    expect(style.err).toContain("stripe");
    expect(
      await cli(
        "endpoints",
        "add",
        "--api",
        api.url,
        "--token",
        api.operatorToken,
        "--url",
        receiverUrl,
        "--endpoint-token",
        receiverToken,
        "--header",
        "x-api-key",
        "--header",
        "X-Team:a",
        "--header",
        "x-team:b",
      ),
    ).toStrictEqual({
      code: 2,
      out: "",
      err: ["Invalid settings:", "  --header: must be name:value (x-api-key has no value)", ""].join("\n"),
    });
    expect((await asOperator("endpoints", "list")).out).toBe("No endpoints.\n");
  });
});

describe("plant-webhooks messages send and deliveries", () => {
  it("sends a message, lists and shows its delivery with the receiver's answer, and retries it", async () => {
    const added = await asOperator(
      "endpoints",
      "add",
      "--url",
      receiverUrl,
      "--endpoint-token",
      receiverToken,
      "--secret",
      secret,
      "--json",
    );
    const endpointId = (JSON.parse(added.out) as { endpoint: { id: number } }).endpoint.id;

    const sent = await asOperator(
      "messages",
      "send",
      "--event-type",
      "newPlant",
      "--payload",
      '{"id":41,"name":"Monstera deliciosa"}',
      "--idempotency-key",
      "order-41",
      "--ordering-key",
      "greenhouse-1",
    );
    expect(sent.code).toBe(0);
    const webhookId = /^Queued (msg_\S+) \(newPlant, ordering key greenhouse-1\): 1 delivery\n$/.exec(
      sent.out,
    )?.[1];
    expect(webhookId, sent.out + sent.err).toBeDefined();
    // Sent again with its key: nothing new.
    const again = await asOperator(
      "messages",
      "send",
      "--event-type",
      "newPlant",
      "--payload",
      '{"id":41,"name":"Monstera deliciosa"}',
      "--idempotency-key",
      "order-41",
      "--ordering-key",
      "greenhouse-1",
    );
    expect(again.out).toBe(
      `Already sent with this idempotency key: ${webhookId} (newPlant, ordering key greenhouse-1), 1 delivery; nothing new queued\n`,
    );
    // From a file, as JSON.
    const file = join(dir, "plant.json");
    await writeFile(file, JSON.stringify({ id: 42, name: "Pilea" }));
    const fromFile = await asOperator(
      "messages",
      "send",
      "--event-type",
      "newPlant",
      "--payload-file",
      file,
      "--json",
    );
    expect(JSON.parse(fromFile.out)).toStrictEqual({
      message: { webhookId: expect.stringMatching(/^msg_/), eventType: "newPlant", orderingKey: null },
      queued: 1,
    });

    await waitFor(() => (handled.length >= 2 ? true : undefined), 20_000);
    expect(handled).toStrictEqual([
      { id: 41, name: "Monstera deliciosa" },
      { id: 42, name: "Pilea" },
    ]);
    const listed = await waitFor(async () => {
      const run = await asOperator(
        "deliveries",
        "list",
        "--endpoint",
        String(endpointId),
        "--status",
        "delivered",
        "--json",
      );
      const { deliveries } = JSON.parse(run.out) as { deliveries: Array<{ id: number; webhookId: string }> };
      return deliveries.length === 2 ? deliveries : undefined;
    });
    const delivery = listed.find((d) => d.webhookId === webhookId) as { id: number };
    const text = await asOperator(
      "deliveries",
      "list",
      "--endpoint",
      String(endpointId),
      "--event-type",
      "newPlant",
    );
    expect(text.out).toContain(
      `#${delivery.id} delivered newPlant ${webhookId} to endpoint #${endpointId}: 1 attempt, last answer 200\n`,
    );

    const shown = await asOperator("deliveries", "show", String(delivery.id));
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(
      new RegExp(
        `^#${delivery.id} delivered newPlant ${webhookId} to endpoint #${endpointId}: 1 attempt, last answer 200\\n  ordering key: greenhouse-1\\nAttempts:\\n  1\\. \\S+ 200 in \\d+ ms, delivered: \\{"received":true,"duplicate":false\\}\\n$`,
      ),
    );

    const retried = await asOperator("deliveries", "retry", String(delivery.id));
    expect(retried).toStrictEqual({
      code: 0,
      out: `Delivery #${delivery.id} is due again now (pending)\n`,
      err: "",
    });
    const twice = await waitFor(async () => {
      const { attempts } = JSON.parse(
        (await asOperator("deliveries", "show", String(delivery.id), "--json")).out,
      ) as {
        attempts: Array<{ status: number; responseBody: string }>;
      };
      return attempts.length === 2 ? attempts : undefined;
    }, 20_000);
    // The receiver saw the same webhook id again and said so.
    expect(twice.map((a) => [a.status, a.responseBody])).toStrictEqual([
      [200, '{"received":true,"duplicate":false}'],
      [200, '{"received":true,"duplicate":true}'],
    ]);
  });

  it("refuses a payload that is not a JSON object before calling the API, and passes on the API's 400 and 409", async () => {
    const notJson = await asOperator("messages", "send", "--event-type", "newPlant", "--payload", "{id: 1}");
    expect(notJson.code).toBe(2);
    expect(notJson.err).toMatch(/^--payload is not valid JSON: /);
    const array = await asOperator("messages", "send", "--event-type", "newPlant", "--payload", "[1]");
    expect(array).toMatchObject({
      code: 2,
      err: "--payload must hold a JSON object (the payload every endpoint receives)\n",
    });
    const both = await cli(
      "messages",
      "send",
      "--api",
      api.url,
      "--token",
      api.operatorToken,
      "--event-type",
      "x",
    );
    expect(both).toMatchObject({
      code: 2,
      err: "Invalid settings:\n  --payload, --payload-file: give one of them\n",
    });
    const schema = await asOperator("messages", "send", "--event-type", "newPlant", "--payload", '{"id":1}');
    expect(schema.code).toBe(1);
    expect(schema.err).toMatch(
      /^POST \/webhooks\/messages answered 400: The newPlant payload is refused: name: /,
    );
    await asOperator(
      "messages",
      "send",
      "--event-type",
      "newPlant",
      "--payload",
      '{"id":5,"name":"a"}',
      "--idempotency-key",
      "k5",
    );
    const conflict = await asOperator(
      "messages",
      "send",
      "--event-type",
      "newPlant",
      "--payload",
      '{"id":5,"name":"b"}',
      "--idempotency-key",
      "k5",
    );
    expect(conflict).toStrictEqual({
      code: 1,
      out: "",
      err: "POST /webhooks/messages answered 409: This idempotency key was already used with another message (event type, payload or ordering key); nothing was queued\n",
    });
  });
});

describe("the API's credential and URL", () => {
  it("takes them from PLANT_WEBHOOKS_API and PLANT_WEBHOOKS_TOKEN, and a subscriber's token sees its own endpoints only", async () => {
    const { token } = await api.outbox.addSubscriber({ name: "A customer" });
    const saved = { api: process.env.PLANT_WEBHOOKS_API, token: process.env.PLANT_WEBHOOKS_TOKEN };
    process.env.PLANT_WEBHOOKS_API = api.url;
    process.env.PLANT_WEBHOOKS_TOKEN = token;
    try {
      expect(await cli("endpoints", "list")).toStrictEqual({ code: 0, out: "No endpoints.\n", err: "" });
      // Sending messages is the operator's: a subscriber is answered as for a path that does not exist.
      const send = await cli(
        "messages",
        "send",
        "--event-type",
        "newPlant",
        "--payload",
        '{"id":1,"name":"a"}',
      );
      expect(send.code).toBe(1);
      expect(send.err).toBe(
        "POST /webhooks/messages answered 404: Route not found (check --api / PLANT_WEBHOOKS_API: it must be the URL the API is mounted at, prefix included; a subscriber's token is also answered 404 on the operator's routes)\n",
      );
    } finally {
      for (const [name, value] of [
        ["PLANT_WEBHOOKS_API", saved.api],
        ["PLANT_WEBHOOKS_TOKEN", saved.token],
      ] as const)
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  });

  it("explains a wrong token, a URL without the API's prefix, and a service that is not running", async () => {
    const wrong = await cli("endpoints", "list", "--api", api.url, "--token", "not-the-token");
    expect(wrong).toStrictEqual({
      code: 1,
      out: "",
      err: "GET /webhooks/endpoints answered 401: Missing or wrong token (Authorization: Bearer <token>) (check --token / PLANT_WEBHOOKS_TOKEN: the API did not accept it as an operator's or a subscriber's token)\n",
    });
    const origin = new URL(api.url).origin;
    const noPrefix = await cli("endpoints", "list", "--api", origin, "--token", api.operatorToken);
    expect(noPrefix.code).toBe(1);
    expect(noPrefix.err).toMatch(
      /^GET \/endpoints answered 404: <h1>Not found<\/h1>.* \(check --api \/ PLANT_WEBHOOKS_API: it must be the URL the API is mounted at, prefix included;/,
    );

    // A port nothing listens on any more.
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const down = await cli(
      "deliveries",
      "list",
      "--api",
      `http://127.0.0.1:${port}/webhooks`,
      "--token",
      "t",
    );
    expect(down).toStrictEqual({
      code: 1,
      out: "",
      err: `Could not reach the API at http://127.0.0.1:${port}/webhooks (ECONNREFUSED): is the service running, and is --api (PLANT_WEBHOOKS_API) the URL it is mounted at?\n`,
    });
    const bad = await cli(
      "deliveries",
      "list",
      "--api",
      "http://u:p@h.example/webhooks?x=1",
      "--token",
      "has space",
    );
    expect(bad).toStrictEqual({
      code: 2,
      out: "",
      err: "Invalid settings:\n  --api (PLANT_WEBHOOKS_API): must not contain credentials (user:password@): give the token as --token\n  --token (PLANT_WEBHOOKS_TOKEN): must be visible ASCII (no spaces, control or non-ASCII characters)\n",
    });
  });
});
