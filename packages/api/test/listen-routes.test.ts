import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import { createSqliteOutbox, type SqliteOutbox } from "@plant-store/sender/sqlite";
import { callApi } from "@plant-store/testing";
import { generateWebhookSecret, MAX_BODY_BYTES } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookApi, type WebhookApi } from "../src/index.js";
import { createListenRelay } from "../src/listen/create-listen-relay.js";
import { expectDocumented, expectSchema } from "./fixtures/expect-documented.js";

// The listen routes in-process, against the document: opening a session, the relay as the worker
// calls it, answers, time-outs and the end of a session.
const adminToken = "admin-token-listen-routes-0123";
const timeoutMs = 300;
const dir = mkdtempSync(join(tmpdir(), "plant-store-listen-routes-"));
let store: { outbox: SqliteOutbox };
let api: WebhookApi;
let server: Server;
let base: string;

beforeAll(async () => {
  store = { outbox: createSqliteOutbox(join(dir, "store.db")) };
  api = createWebhookApi({
    outbox: store.outbox,
    operatorTokens: [adminToken],
    deliveryTimeoutMs: timeoutMs,
  });
  server = createServer(api.node).listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api.listenRelay.setOrigin(base);
});

afterAll(async () => {
  await api.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await store.outbox.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Line {
  type: string;
  [key: string]: unknown;
}

/** Opens a session and reads its stream line by line. */
async function openSession(input: object = {}) {
  const response = await fetch(`${base}/listen`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(input),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/x-ndjson");
  const lines = createInterface({ input: Readable.fromWeb(response.body as never) })[Symbol.asyncIterator]();
  const next = async (): Promise<Line | undefined> => {
    const { value, done } = await lines.next();
    if (done) return undefined;
    const line = JSON.parse(value) as Line;
    expectSchema("ListenLine", line);
    return line;
  };
  const first = (await next()) as Line;
  return { session: first.session as string, first, next };
}

/** `token`: the bearer token to send, `null` for none. */
const call = (method: string, path: string, body?: unknown, token: string | null = adminToken) =>
  callApi(base, method, path, { token, body });

const TOKEN = "listen-route-token";

describe("the listen routes", () => {
  it("opens a session as a temporary endpoint on this store's relay, generating what was not given", async () => {
    const { session, first } = await openSession();
    expect(first).toMatchObject({ type: "session", timeoutMs });
    expect(first.token).toMatch(/^lst_token_/);
    expect(first.secret).toMatch(/^whsec_/);
    const endpoint = first.endpoint as { id: number; url: string };
    expect(endpoint.url).toBe(`${base}/relay/${session}`);
    expect((await store.outbox.getEndpoint(endpoint.id))?.token).toBe(first.token);
    // The one exception the API adds to the worker's guard (here the default: public addresses only).
    const granted = (id: number, url: string) =>
      api.ssrfGuard.check(url, { endpoint: { id, subscriberId: null } }).then(
        () => true,
        () => false,
      );
    expect(await granted(endpoint.id, endpoint.url)).toBe(true);
    // Granted to the session's endpoint at its own URL only: not another path, port or query, nor
    // another endpoint at that very URL.
    for (const other of [
      `${base}/plants`,
      `${base}/relay/${session}?x=1`,
      endpoint.url.replace(base, "http://127.0.0.1:1"),
    ])
      expect(await granted(endpoint.id, other), other).toBe(false);
    expect(await granted(endpoint.id + 1000, endpoint.url)).toBe(false);
    const given = await openSession({ token: TOKEN, secrets: [generateWebhookSecret()] });
    expect(given.first).not.toHaveProperty("token");
    expect(given.first).not.toHaveProperty("secret");
  });

  it("sets the event types asked for as the endpoint is added, and refuses one no endpoint could have", async () => {
    const { first } = await openSession({ eventTypes: ["plant.created", "alert.*"] });
    const endpoint = first.endpoint as { id: number; eventTypes: string[] | null };
    expect(endpoint.eventTypes).toEqual(["plant.created", "alert.*"]);
    expect((await store.outbox.getEndpoint(endpoint.id))?.eventTypes).toEqual(["plant.created", "alert.*"]);
    expect(
      ((await openSession({ eventTypes: null })).first.endpoint as typeof endpoint).eventTypes,
    ).toBeNull();
    const refused = await call("POST", "/listen", { eventTypes: ["plant created"] });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("eventTypes.0");
    expectDocumented("post", "/listen", refused.status, refused.body);
  });

  it("refuses to open one without the admin token, with invalid input or another content type", async () => {
    const anonymous = await call("POST", "/listen", {}, null);
    expect(anonymous.status).toBe(401);
    expectDocumented("post", "/listen", anonymous.status, anonymous.body);
    const invalid = await call("POST", "/listen", { token: "has space", colour: "green" });
    expect(invalid.status).toBe(400);
    expectDocumented("post", "/listen", invalid.status, invalid.body);
    const text = await fetch(`${base}/listen`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "text/plain" },
      body: "{}",
    });
    expect(text.status).toBe(415);
    expectDocumented("post", "/listen", text.status, await text.json());
  });

  it("relays a delivery to the stream as sent, and answers the worker with the CLI's answer", async () => {
    const { session, next } = await openSession({ token: TOKEN });
    const body = '{"id":1,"name":"Monstera deliciosa"}';
    const answered = fetch(`${base}/relay/${session}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        "webhook-id": "msg_relayed",
        "webhook-timestamp": "1767225600",
        "webhook-signature": "v1,abc=",
      },
      body,
    });
    const delivery = (await next()) as Line & {
      request: number;
      headers: Record<string, string>;
      body: string;
    };
    expect(delivery.type).toBe("delivery");
    expect(Buffer.from(delivery.body, "base64").toString("utf8")).toBe(body);
    expect(delivery.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      "webhook-id": "msg_relayed",
      "webhook-timestamp": "1767225600",
      "webhook-signature": "v1,abc=",
    });
    // Connection headers are the relay's own, not the delivery's.
    for (const hop of ["host", "connection", "content-length"])
      expect(delivery.headers).not.toHaveProperty(hop);
    const answer = await call("POST", `/listen/${session}/answers/${delivery.request}`, {
      status: 202,
      headers: { "content-type": "text/plain; charset=utf-8", "retry-after": "7", "x-local": "kept home" },
      body: "accepted locally",
    });
    expect(answer.status).toBe(204);
    expectDocumented("post", "/listen/{session}/answers/{request}", answer.status, answer.body);
    const worker = await answered;
    expect(worker.status).toBe(202);
    expect(worker.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(worker.headers.get("retry-after")).toBe("7");
    expect(worker.headers.get("x-local")).toBeNull();
    expect(await worker.text()).toBe("accepted locally");
    // Answered once: a second answer finds nothing waiting.
    const again = await call("POST", `/listen/${session}/answers/${delivery.request}`, {
      status: 200,
      body: "",
    });
    expect(again.status).toBe(404);
    expectDocumented("post", "/listen/{session}/answers/{request}", again.status, again.body);
  });

  it("answers the worker 502 when the CLI could not reach its receiver, and 504 when the CLI never answers", async () => {
    const { session, next } = await openSession({ token: TOKEN });
    const relayed = () => call("POST", `/relay/${session}`, '{"id":2,"name":"Ficus"}', TOKEN);
    const unreachable = relayed();
    const { request } = (await next()) as Line & { request: number };
    await call("POST", `/listen/${session}/answers/${request}`, { error: "ECONNREFUSED" });
    expect(await unreachable).toMatchObject({
      status: 502,
      body: { error: 502, message: "The listening CLI could not reach its local receiver (ECONNREFUSED)" },
    });
    expectDocumented("post", "/relay/{session}", 502, (await unreachable).body);
    const silent = await relayed();
    expect(silent).toMatchObject({
      status: 504,
      body: { error: 504, message: `The listening CLI did not answer within ${timeoutMs} ms` },
    });
    expectDocumented("post", "/relay/{session}", silent.status, silent.body);
  });

  it("refuses the relay with 410 for an unknown session or another token, and 413 for a body over the contract's limit", async () => {
    const { session } = await openSession({ token: TOKEN });
    for (const [path, token] of [
      [`/relay/${session}`, "another-token"],
      [`/relay/${session}`, null],
      ["/relay/lst_00000000000000000000000000000000", TOKEN],
    ] as const) {
      const refused = await call("POST", path, "{}", token);
      expect(refused.status, `${path} ${token}`).toBe(410);
      expectDocumented("post", "/relay/{session}", refused.status, refused.body);
      const probed = await call("GET", path, undefined, token);
      expect(probed.status).toBe(410);
    }
    expect((await call("GET", `/relay/${session}`, undefined, TOKEN)).status).toBe(204);
    const large = await call("POST", `/relay/${session}`, "x".repeat(MAX_BODY_BYTES + 1), TOKEN);
    expect(large.status).toBe(413);
    expectDocumented("post", "/relay/{session}", large.status, large.body);
  });

  it("ends a session on DELETE: the endpoint goes, a waiting delivery gets 503 and the stream ends", async () => {
    const { session, first, next } = await openSession({ token: TOKEN });
    const endpointId = (first.endpoint as { id: number }).id;
    const waiting = call("POST", `/relay/${session}`, '{"id":3,"name":"Fern"}', TOKEN);
    await next();
    const deleted = await call("DELETE", `/listen/${session}`);
    expect(deleted.status).toBe(204);
    expectDocumented("delete", "/listen/{session}", deleted.status, deleted.body);
    expect(await waiting).toMatchObject({ status: 503 });
    expect(await next()).toBeUndefined();
    expect(await store.outbox.getEndpoint(endpointId)).toBeUndefined();
    const gone = await call("DELETE", `/listen/${session}`);
    expect(gone.status).toBe(404);
    expectDocumented("delete", "/listen/{session}", gone.status, gone.body);
    const malformed = await call("DELETE", "/listen/not-a-session");
    expect(malformed.status).toBe(400);
    expectDocumented("delete", "/listen/{session}", malformed.status, malformed.body);
  });

  it("ends a session when its stream's connection closes", async () => {
    const controller = new AbortController();
    const response = await fetch(`${base}/listen`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: "{}",
      signal: controller.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = JSON.parse(
      new TextDecoder().decode((await reader.read()).value).split("\n")[0] as string,
    ) as Line;
    const endpointId = (first.endpoint as { id: number }).id;
    controller.abort();
    await reader.closed.catch(() => undefined);
    await expect.poll(async () => store.outbox.getEndpoint(endpointId)).toBeUndefined();
    expect((await call("DELETE", `/listen/${first.session}`)).status).toBe(404);
  });

  it("removes listen endpoints no live session stands behind, and keeps live ones and every other endpoint", async () => {
    await api.close();
    const { first } = await openSession({ token: TOKEN });
    const live = (first.endpoint as { id: number }).id;
    const add = (url: string) =>
      store.outbox.addEndpoint({ url, token: TOKEN, secrets: [generateWebhookSecret()] });
    const leftHere = await add(`${base}/relay/lst_${"1".repeat(32)}`);
    // Another store process on this host, no longer running.
    const leftElsewhere = await add(`http://127.0.0.1:1/relay/lst_${"2".repeat(32)}`);
    const normal = await add("https://receiver.example/plant/webhook");
    const remote = await add(`https://receiver.example/relay/lst_${"3".repeat(32)}`);
    expect(await api.listenRelay.removeStale()).toBe(2);
    const kept = (await store.outbox.listEndpoints()).map((endpoint) => endpoint.id);
    expect(kept).toEqual(expect.arrayContaining([live, normal.id, remote.id]));
    expect(kept).not.toContain(leftHere.id);
    expect(kept).not.toContain(leftElsewhere.id);
  });

  it("keeps running when a session's endpoint cannot be removed as its connection closes, and removes it at the next look", async () => {
    const warnings: string[] = [];
    const failing = createListenRelay({
      outbox: {
        ...store.outbox,
        removeEndpoint: () =>
          Promise.reject(Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" })),
      },
      timeoutMs,
      logger: {
        info: () => undefined,
        warn: (_: object, message: string) => warnings.push(message),
      },
    });
    failing.setOrigin(base);
    const session = await failing.open({ owner: "operator" });
    failing.release(session.id);
    await expect.poll(() => warnings).toStrictEqual(["could not remove a listen session's endpoint"]);
    expect(failing.get(session.id)).toBeUndefined();
    expect(await store.outbox.getEndpoint(session.endpoint.id)).toBeDefined();
    // The store's own relay does not know the session either: the endpoint is one left behind.
    expect(await api.listenRelay.removeStale()).toBe(1);
    expect(await store.outbox.getEndpoint(session.endpoint.id)).toBeUndefined();
  });
});
