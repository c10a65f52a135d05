import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createDeliveryClient,
  createSsrfGuard,
  createWorker,
  type Outbox,
  type SenderLogger,
  type Worker,
} from "@plant-store/sender";
import { createPostgresOutbox } from "@plant-store/sender/postgres";
import { createSqliteOutbox } from "@plant-store/sender/sqlite";
import {
  callApi,
  type ReceivedRequest,
  startPostgres,
  startTestReceiver,
  type TestReceiver,
  waitFor,
} from "@plant-store/testing";
import { generateWebhookSecret, PLANT_STORE_WEBHOOKS } from "@plant-store/types";
import { Webhook } from "svix";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookApi, type WebhookApi } from "../src/index.js";
import { expectDocumented } from "./fixtures/expect-documented.js";

// Issue 41 through the admin API: an endpoint's filter, static headers and signature header names, set
// with POST and PATCH /endpoints (the operator's and a subscriber's own), refused with 400 naming the
// problem, and shown (headers masked) on the endpoint. Real HTTP on loopback, a real worker delivering
// to a real receiver, the store's behaviour on SQLite and PostgreSQL.

const token = "operator-token-endpoint-options-0123";
const apiKey = "gateway-key-7f3a9c-never-shown";

interface Endpoint {
  id: number;
  filter: string | null;
  filteredCount: number;
  signatureHeaders: string;
  headers: Record<string, string>;
}

/** Every line the API logged, whole, to look for a secret in. */
const logged: string[] = [];
const record =
  (level: string) =>
  (...args: unknown[]) =>
    void logged.push(`${level} ${JSON.stringify(args)}`);
const logger = {
  info: record("info"),
  warn: record("warn"),
  error: record("error"),
  debug: record("debug"),
} as unknown as SenderLogger;

interface Store {
  name: string;
  open(): Promise<{ outbox: Outbox; close(): Promise<void> }>;
}

const dir = mkdtempSync(join(tmpdir(), "endpoint-options-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stores: Store[] = [
  {
    name: "SQLite",
    open: async () => {
      const outbox = createSqliteOutbox(join(dir, "outbox.db"), { catalog: PLANT_STORE_WEBHOOKS });
      return { outbox, close: () => outbox.close() };
    },
  },
  {
    name: "PostgreSQL",
    open: async () => {
      const postgres = await startPostgres();
      const outbox = await createPostgresOutbox(postgres.url, { catalog: PLANT_STORE_WEBHOOKS });
      return {
        outbox,
        close: async () => {
          await outbox.close();
          await postgres.stop();
        },
      };
    },
  },
];

describe.each(stores)("endpoint options through the admin API ($name)", (store) => {
  let outbox: Outbox;
  let closeStore: () => Promise<void>;
  let api: WebhookApi;
  let server: Server;
  let worker: Worker;
  let receiver: TestReceiver;
  let base: string;
  const call = (method: string, path: string, body?: unknown, bearer: string = token) =>
    callApi(base, method, path, { token: bearer, body });

  beforeAll(async () => {
    ({ outbox, close: closeStore } = await store.open());
    receiver = await startTestReceiver();
    // The receiver is on loopback: the operator's guard and the worker's let it through.
    const ssrfGuard = createSsrfGuard({ allowPrivateTargets: true });
    worker = createWorker({ outbox, client: createDeliveryClient({ timeoutMs: 5000 }), ssrfGuard });
    api = createWebhookApi({
      outbox,
      operatorTokens: [token],
      eventTypes: PLANT_STORE_WEBHOOKS.eventTypes,
      ssrfGuard,
      wake: () => worker.wake(),
      logger,
      pages: false,
    });
    server = createServer(api.node).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    worker.start();
  });

  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await new Promise((resolve) => server?.close(resolve));
    await receiver?.close();
    await closeStore?.();
  });

  /** An operator's endpoint at `path` of the receiver, added through the API with `options`. */
  const addEndpoint = async (path: string, options: Record<string, unknown>, secret?: string) => {
    const added = await call("POST", "/endpoints", {
      url: `${receiver.url}${path}`,
      token: "receiver-token-0123",
      ...(secret === undefined ? {} : { secret }),
      ...options,
    });
    expectDocumented("post", "/endpoints", added.status, added.body);
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    return (added.body as { endpoint: Endpoint }).endpoint;
  };
  const sendPlant = async (payload: Record<string, unknown>) => {
    const sent = await call("POST", "/messages", { eventType: "newPlant", payload });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
  };
  const receivedAt = (path: string) => receiver.requests.filter((request) => request.path === path);

  it("sends an endpoint filtered on payload.tag the tropical plants only, and counts the others it excluded", async () => {
    const filter = 'payload.tag == "tropical"';
    const endpoint = await addEndpoint("/tropical", { filter, eventTypes: ["newPlant"] });
    expect(endpoint).toMatchObject({ filter, filteredCount: 0, signatureHeaders: "standard", headers: {} });
    // An endpoint with no filter beside it receives all of them: what the filter saved.
    await addEndpoint("/everything", { eventTypes: ["newPlant"] });
    const plants = [
      { id: 1, name: "Monstera", tag: "tropical" },
      { id: 2, name: "Ficus", tag: "indoor" },
      { id: 3, name: "Calathea", tag: "tropical" },
      { id: 4, name: "Cactus" }, // no tag: the filter errors on it, which excludes it as false would
    ];
    for (const plant of plants) await sendPlant(plant);
    await receiver.waitForRequests(plants.length + 2);
    await waitFor(() => (receivedAt("/everything").length === plants.length ? true : undefined));
    const names = (requests: ReceivedRequest[]) =>
      requests.map((request) => (JSON.parse(request.body) as { name: string }).name).sort();
    expect(names(receivedAt("/tropical"))).toStrictEqual(["Calathea", "Monstera"]);
    expect(names(receivedAt("/everything"))).toStrictEqual(["Cactus", "Calathea", "Ficus", "Monstera"]);

    const shown = await call("GET", `/endpoints/${endpoint.id}`);
    expectDocumented("get", "/endpoints/{id}", shown.status, shown.body);
    expect((shown.body as { endpoint: Endpoint }).endpoint).toMatchObject({ filter, filteredCount: 2 });
    const listed = await call("GET", "/endpoints");
    expectDocumented("get", "/endpoints", listed.status, listed.body);
    // Which ones, one by one: the two it excluded, oldest first, paged by an opaque cursor.
    const excluded = await call("GET", `/endpoints/${endpoint.id}/excluded?limit=1`);
    expectDocumented("get", "/endpoints/{id}/excluded", excluded.status, excluded.body);
    const first = excluded.body as {
      messages: Array<{ webhookId: string; eventType: string }>;
      next: string;
    };
    expect(first.messages).toHaveLength(1);
    const rest = await call("GET", `/endpoints/${endpoint.id}/excluded?after=${first.next}`);
    expectDocumented("get", "/endpoints/{id}/excluded", rest.status, rest.body);
    const excludedIds = [...first.messages, ...(rest.body as typeof first).messages].map((m) => m.webhookId);
    const everything = receivedAt("/everything").map((request) => ({
      id: request.headers["webhook-id"],
      name: (JSON.parse(request.body) as { name: string }).name,
    }));
    expect(excludedIds).toStrictEqual(
      ["Ficus", "Cactus"].map((name) => everything.find((plant) => plant.name === name)?.id),
    );
    const badCursor = await call("GET", `/endpoints/${endpoint.id}/excluded?after=nonsense`);
    expectDocumented("get", "/endpoints/{id}/excluded", badCursor.status, badCursor.body);
    expect(badCursor.status).toBe(400);

    // PATCH changes it from the next message on; null takes it off (the count stays what it was).
    const changed = await call("PATCH", `/endpoints/${endpoint.id}`, {
      filter: 'payload.name.startsWith("F")',
    });
    expectDocumented("patch", "/endpoints/{id}", changed.status, changed.body);
    expect((changed.body as { endpoint: Endpoint }).endpoint.filter).toBe('payload.name.startsWith("F")');
    await sendPlant({ id: 5, name: "Fern", tag: "indoor" });
    await waitFor(() => (receivedAt("/tropical").length === 3 ? true : undefined));
    const cleared = await call("PATCH", `/endpoints/${endpoint.id}`, { filter: null });
    expect((cleared.body as { endpoint: Endpoint }).endpoint).toMatchObject({
      filter: null,
      filteredCount: 2,
    });
  });

  it("refuses a malformed, a wrongly typed, a looping and a too long filter with 400 naming the problem and where it is", async () => {
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ filter: 'payload.tag == "tropical" &&' }, /^filter: .+ \(at 1:\d+\)$/],
      [{ filter: 'payload.tag == "x" &&\n  nosuch(1)' }, /^filter: unknown function nosuch \(at 2:3\)$/],
      [{ filter: 'nosuch(payload.tag) == "x"' }, /^filter: .*nosuch.* \(at 1:\d+\)$/],
      // `id` is an integer in the New Plant's schema, and the endpoint receives New Plants only.
      [
        { filter: 'payload.id == "x"', eventTypes: ["newPlant"] },
        /^filter: .*payload\.id is a number.* \(at 1:15\)$/,
      ],
      [{ filter: 'payload.tags.exists(t, t == "x")' }, /^filter: .*exists.*/],
      [{ filter: `payload.name == "${"x".repeat(4090)}"` }, /filter: must be at most 4096 characters/],
      [{ filter: "" }, /filter: must not be empty/],
    ];
    for (const [options, message] of refusals) {
      const refused = await call("POST", "/endpoints", {
        url: `${receiver.url}/refused`,
        token: "receiver-token-0123",
        ...options,
      });
      expectDocumented("post", "/endpoints", refused.status, refused.body);
      expect(refused.status, String(options.filter)).toBe(400);
      expect((refused.body as { message: string }).message, String(options.filter)).toMatch(message);
    }
    // The same on PATCH, checked against the event types the endpoint already has.
    const endpoint = await addEndpoint("/typed", { eventTypes: ["newPlant"] });
    const typed = await call("PATCH", `/endpoints/${endpoint.id}`, { filter: 'payload.id == "x"' });
    expectDocumented("patch", "/endpoints/{id}", typed.status, typed.body);
    expect(typed.status).toBe(400);
    expect((typed.body as { message: string }).message).toMatch(
      /^filter: .*payload\.id is a number.* \(at 1:15\)$/,
    );
    const shown = await call("GET", `/endpoints/${endpoint.id}`);
    expect((shown.body as { endpoint: Endpoint }).endpoint.filter).toBeNull();
    // Nothing refused was added.
    const listed = (await call("GET", "/endpoints")).body as { endpoints: Array<{ url: string }> };
    expect(listed.endpoints.map((e) => e.url)).not.toContain(`${receiver.url}/refused`);
  });

  it("refuses each header the sender or HTTP writes, whatever its case, with 400 naming it and never the value", async () => {
    const refused = [
      "HOST",
      "Content-Length",
      "content-TYPE",
      "Connection",
      "Keep-Alive",
      "Proxy-Authenticate",
      "proxy-authorization",
      "TE",
      "Trailer",
      "Transfer-Encoding",
      "Upgrade",
      "AUTHORIZATION",
      "Cookie",
      "TraceParent",
      "Webhook-Id",
      "webhook-anything",
      "SVIX-Signature",
    ];
    const value = "value-that-must-not-be-echoed";
    for (const name of refused) {
      const answer = await call("POST", "/endpoints", {
        url: `${receiver.url}/headers-refused`,
        token: "receiver-token-0123",
        headers: { [name]: value },
      });
      expectDocumented("post", "/endpoints", answer.status, answer.body);
      expect(answer.status, name).toBe(400);
      const message = (answer.body as { message: string }).message;
      expect(message, name).toContain(`headers.${name}: ${name}`);
      expect(message).not.toContain(value);
    }
    const endpoint = await addEndpoint("/headers-patched", {});
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ cookie: value }, /headers\.cookie: cookie is written by the sender/],
      [{ "x-key": "line\r\nbreak" }, /x-key's value must be 1 to 4096 visible ASCII/],
      [{ "bad name": value }, /is not a header name/],
      [{ "X-Key": value, "x-key": value }, /x-key is given twice/],
      [Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`x-h${i}`, value])), /at most 20 headers/],
    ];
    for (const [headers, message] of cases) {
      const answer = await call("PATCH", `/endpoints/${endpoint.id}`, { headers });
      expectDocumented("patch", "/endpoints/{id}", answer.status, answer.body);
      expect(answer.status, JSON.stringify(Object.keys(headers))).toBe(400);
      expect((answer.body as { message: string }).message).toMatch(message);
      expect((answer.body as { message: string }).message).not.toContain(value);
    }
  });

  it("sends an endpoint's static header with every delivery and its handshake, shows it masked and never logs it", async () => {
    const endpoint = await addEndpoint("/gateway", {
      headers: { "X-Api-Key": apiKey },
      eventTypes: ["newPlant"],
    });
    expect(endpoint.headers).toStrictEqual({ "X-Api-Key": "********" });
    await sendPlant({ id: 10, name: "Pothos", tag: "indoor" });
    const [delivery] = await waitFor(() => {
      const found = receivedAt("/gateway");
      return found.length > 0 ? found : undefined;
    });
    expect(delivery?.headers["x-api-key"]).toBe(apiKey);
    // The handshake, tried on demand, carries it too (this receiver does not answer the challenge).
    const verify = await call("POST", `/endpoints/${endpoint.id}/verify`);
    expectDocumented("post", "/endpoints/{id}/verify", verify.status, verify.body);
    expect(receivedAt("/gateway").length).toBe(2);
    expect(JSON.parse(receivedAt("/gateway")[1]?.body ?? "{}")).toHaveProperty("challenge");
    expect(receivedAt("/gateway")[1]?.headers["x-api-key"]).toBe(apiKey);

    const replaced = await call("PATCH", `/endpoints/${endpoint.id}`, {
      headers: { "x-api-key": `${apiKey}-2`, "x-team": "plants" },
    });
    const answers = [
      await call("GET", `/endpoints/${endpoint.id}`),
      await call("GET", "/endpoints"),
      replaced,
      await call("POST", `/endpoints/${endpoint.id}/rotate-secret`),
    ];
    for (const answer of answers) expect(JSON.stringify(answer.body)).not.toContain(apiKey);
    expect((replaced.body as { endpoint: Endpoint }).endpoint.headers).toStrictEqual({
      "x-api-key": "********",
      "x-team": "********",
    });
    // Replaced whole: the old name is gone, and the new value is what the next delivery carries.
    await sendPlant({ id: 11, name: "Peperomia", tag: "indoor" });
    await waitFor(() => (receivedAt("/gateway").length === 3 ? true : undefined));
    expect(receivedAt("/gateway")[2]?.headers).toMatchObject({
      "x-api-key": `${apiKey}-2`,
      "x-team": "plants",
    });
    expect(logged.join("\n")).not.toContain(apiKey);
    expect(logged.some((line) => line.includes("endpoint.verification"))).toBe(true);
  });

  it("signs under svix-* names an endpoint set to signatureHeaders svix, which the svix library verifies unchanged", async () => {
    const secret = generateWebhookSecret();
    const endpoint = await addEndpoint(
      "/svix",
      { signatureHeaders: "svix", eventTypes: ["newPlant"] },
      secret,
    );
    expect(endpoint.signatureHeaders).toBe("svix");
    await sendPlant({ id: 20, name: "Alocasia", tag: "tropical" });
    const [request] = await waitFor(() => {
      const found = receivedAt("/svix");
      return found.length > 0 ? found : undefined;
    });
    if (!request) throw new Error("no delivery");
    expect(request.headers["webhook-signature"]).toBeUndefined();
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
    );
    expect(() => new Webhook(secret).verify(request.body, headers)).not.toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(request.body, headers)).toThrow();
    expect(JSON.parse(request.body)).toMatchObject({ name: "Alocasia" });
    // And back to the standard names with PATCH.
    const back = await call("PATCH", `/endpoints/${endpoint.id}`, { signatureHeaders: "standard" });
    expect((back.body as { endpoint: Endpoint }).endpoint.signatureHeaders).toBe("standard");
    const wrong = await call("PATCH", `/endpoints/${endpoint.id}`, { signatureHeaders: "stripe" });
    expectDocumented("patch", "/endpoints/{id}", wrong.status, wrong.body);
    expect(wrong.status).toBe(400);
    expect((wrong.body as { message: string }).message).toMatch(/signatureHeaders: /);
  });

  it("lets a subscriber set them on its own endpoint only: another's answers 404 as missing and keeps its own", async () => {
    const { token: ownerToken } = await outbox.addSubscriber({ name: "Owner" });
    const { token: strangerToken } = await outbox.addSubscriber({ name: "Stranger" });
    const added = await call(
      "POST",
      "/endpoints",
      {
        url: `${receiver.url}/subscriber`,
        token: "receiver-token-0123",
        filter: 'payload.tag == "tropical"',
        headers: { "x-api-key": apiKey },
        signatureHeaders: "svix",
        eventTypes: ["newPlant"],
      },
      ownerToken,
    );
    expectDocumented("post", "/endpoints", added.status, added.body);
    expect(added.status).toBe(201);
    const own = (added.body as { endpoint: Endpoint }).endpoint;
    expect(own).toMatchObject({ filter: 'payload.tag == "tropical"', signatureHeaders: "svix" });
    expect(JSON.stringify(added.body)).not.toContain(apiKey);
    const refused = await call(
      "POST",
      "/endpoints",
      {
        url: `${receiver.url}/subscriber-typed`,
        token: "receiver-token-0123",
        filter: 'payload.id == "x"',
        eventTypes: ["newPlant"],
      },
      ownerToken,
    );
    expect(refused.status).toBe(400);

    const othersExclusions = await call("GET", `/endpoints/${own.id}/excluded`, undefined, strangerToken);
    expectDocumented("get", "/endpoints/{id}/excluded", othersExclusions.status, othersExclusions.body);
    expect(othersExclusions.status).toBe(404);
    expect((await call("GET", `/endpoints/${own.id}/excluded`, undefined, ownerToken)).status).toBe(200);
    for (const change of [{ filter: "true" }, { headers: {} }, { signatureHeaders: "standard" }]) {
      const answer = await call("PATCH", `/endpoints/${own.id}`, change, strangerToken);
      expectDocumented("patch", "/endpoints/{id}", answer.status, answer.body);
      expect(answer.status).toBe(404);
      expect(answer.body).toStrictEqual({ error: 404, message: "Endpoint not found" });
    }
    const unchanged = await call("GET", `/endpoints/${own.id}`, undefined, ownerToken);
    expect((unchanged.body as { endpoint: Endpoint }).endpoint).toMatchObject({
      filter: 'payload.tag == "tropical"',
      signatureHeaders: "svix",
      headers: { "x-api-key": "********" },
    });
    const changed = await call(
      "PATCH",
      `/endpoints/${own.id}`,
      { filter: 'payload.name == "Fern"' },
      ownerToken,
    );
    expect((changed.body as { endpoint: Endpoint }).endpoint.filter).toBe('payload.name == "Fern"');
  });
});
