import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPortalAccess } from "@plant-store/api";
import { createRetryPolicy, type Outbox } from "@plant-store/sender";
import { type ApiAnswer, callApi, startPostgres, type TestPostgres } from "@plant-store/testing";
import { createWebhookVerifier, generateWebhookSecret, NEW_PLANT_EVENT } from "@plant-store/types";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApp } from "../../src/create-admin-app.js";
import { openStore, type Store } from "../../src/open-store.js";
import { expectDocumented } from "../fixtures/expect-documented.js";

const PATH = "/endpoints/{id}/events";
const dir = mkdtempSync(join(tmpdir(), "plant-store-events-"));
let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const targets = [
  ["SQLite", async () => join(dir, `store-${Math.random().toString(36).slice(2)}.db`)],
  ["PostgreSQL", async () => postgres.createDatabase()],
] as const;

/**
 * `GET /endpoints/{id}/events` through the admin API: who may read which endpoint's events (the
 * endpoint's own token, its subscriber's, the operator's; anything else 404 as a missing endpoint, or
 * 401), that each event verifies as a push, paging, and the 410 of a cursor retention outlived.
 */
describe.each(targets)("GET /endpoints/{id}/events on %s", (_name, target) => {
  const adminToken = "admin-token-events-0123456789";
  const secret = generateWebhookSecret();
  let store: Store;
  let outbox: Outbox;
  let server: Server;
  let base: string;
  const ids = { operator: 0, mine: 0, mineOther: 0, theirs: 0 };
  let mineToken = "";
  let theirsToken = "";

  const get = async (id: number, query: string, token: string | null): Promise<ApiAnswer> => {
    const answer = await callApi(base, "GET", `/endpoints/${id}/events${query}`, { token });
    expectDocumented("get", PATH, answer.status, answer.body);
    return answer;
  };
  const plantIds = (answer: ApiAnswer) =>
    (answer.body.events as Array<{ body: string }>).map((event) => JSON.parse(event.body).id);

  beforeAll(async () => {
    store = await openStore(await target());
    outbox = store.outbox;
    const app = createAdminApp({
      outbox,
      plants: store.plants,
      adminToken,
      registry: new Registry(),
      portal: createPortalAccess(store.portalCredentials),
    });
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const mine = await outbox.addSubscriber({ name: "mine" });
    const theirs = await outbox.addSubscriber({ name: "theirs" });
    mineToken = mine.token;
    theirsToken = theirs.token;
    const add = async (path: string, token: string, subscriberId?: number) => {
      const endpoint = await outbox.addEndpoint({
        url: `https://receiver.example${path}`,
        token,
        secrets: [secret],
        ...(subscriberId === undefined ? {} : { subscriberId }),
      });
      if (subscriberId !== undefined)
        await outbox.markEndpointVerified(endpoint.id, { subscriberId }, endpoint.url);
      return endpoint.id;
    };
    ids.operator = await add("/operator", "operator-endpoint-token");
    ids.mine = await add("/mine", "mine-endpoint-token", mine.subscriber.id);
    ids.mineOther = await add("/mine-other", "mine-other-endpoint-token", mine.subscriber.id);
    ids.theirs = await add("/theirs", "theirs-endpoint-token", theirs.subscriber.id);
    const plant = (id: number, subscriberId?: number) =>
      outbox.enqueue({
        eventType: NEW_PLANT_EVENT,
        payload: { id, name: `Plant ${id}` },
        ...(subscriberId === undefined ? {} : { subscriberId }),
      });
    await plant(1);
    await plant(2, theirs.subscriber.id);
    await plant(3, mine.subscriber.id);
    await plant(4);
  }, 60_000);

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await store.close();
  });

  it("answers the endpoint's own token, its subscriber's and the operator's with the same events, each verifiable as a push", async () => {
    for (const token of ["mine-endpoint-token", mineToken, adminToken]) {
      const answer = await get(ids.mine, "", token);
      expect(answer.status, token).toBe(200);
      expect(answer.headers.get("cache-control")).toBe("no-store");
      expect(plantIds(answer)).toEqual([1, 3, 4]);
    }
    const verify = createWebhookVerifier({ secrets: [secret] });
    const { body } = await get(ids.mine, "", "mine-endpoint-token");
    for (const event of body.events) {
      const verified = await verify(event.body, {
        id: event.headers["webhook-id"],
        timestamp: event.headers["webhook-timestamp"],
        signature: event.headers["webhook-signature"],
      });
      expect(verified.webhookId).toBe(event.webhookId);
      expect(event.headers["webhook-event-type"]).toBe(NEW_PLANT_EVENT);
      expect(event.headers.authorization).toBeUndefined();
    }
    // The body altered in transit fails verification.
    const [first] = body.events;
    await expect(
      (async () =>
        verify(first.body.replace("Plant", "Plont"), {
          id: first.headers["webhook-id"],
          timestamp: first.headers["webhook-timestamp"],
          signature: first.headers["webhook-signature"],
        }))(),
    ).rejects.toThrow();
  });

  it("answers 404, as for a missing endpoint, to a subscriber's or an endpoint's credential on anyone else's endpoint", async () => {
    const missing = await get(999_999, "", adminToken);
    expect(missing.status).toBe(404);
    for (const [id, token] of [
      [ids.theirs, mineToken],
      [ids.operator, mineToken],
      [ids.mine, theirsToken],
      [ids.theirs, "mine-endpoint-token"],
      [ids.mineOther, "mine-endpoint-token"],
      [ids.operator, "mine-endpoint-token"],
      [999_999, "mine-endpoint-token"],
    ] as const) {
      const answer = await get(id, "", token);
      expect(answer.status, `${id} ${token}`).toBe(404);
      expect(answer.body, `${id} ${token}`).toStrictEqual(missing.body);
    }
    // Their own listings hold none of the other's messages.
    expect(plantIds(await get(ids.theirs, "", theirsToken))).toEqual([1, 2, 4]);
  });

  it("answers a portal session of the endpoint's subscriber, and 404 to it on another's endpoint", async () => {
    const mine = await outbox.listSubscribers().then((all) => all.find((s) => s.name === "mine"));
    const issued = await callApi(base, "POST", `/subscribers/${mine?.id}/portal-links`, {
      token: adminToken,
    });
    const link = new URL(issued.body.url).hash.slice(1);
    const exchanged = await callApi(base, "POST", "/portal-sessions", { body: { link } });
    expect(exchanged.status, exchanged.text).toBe(201);
    const session = exchanged.body.session as string;
    expect(plantIds(await get(ids.mine, "", session))).toEqual([1, 3, 4]);
    expect((await get(ids.theirs, "", session)).status).toBe(404);
  });

  it("reads the endpoint once a page for its own token, and answers bad input only to the endpoint's holder", async () => {
    // The store's own outbox, its calls counted on the way through.
    const calls: string[] = [];
    const counted = new Proxy(outbox, {
      get(target, key) {
        const value = Reflect.get(target, key);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls.push(String(key));
          return value.apply(target, args);
        };
      },
    });
    const app = createAdminApp({
      outbox: counted,
      plants: store.plants,
      adminToken,
      registry: new Registry(),
    });
    const counting = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => counting.once("listening", resolve));
    const url = `http://127.0.0.1:${(counting.address() as AddressInfo).port}`;
    try {
      const reads = () => calls.filter((name) => name === "getEndpoint" || name === "listEvents");
      calls.length = 0;
      const page = await callApi(url, "GET", `/endpoints/${ids.mine}/events`, {
        token: "mine-endpoint-token",
      });
      expect(page.status).toBe(200);
      expect(plantIds(page)).toEqual([1, 3, 4]);
      expect(reads()).toEqual(["listEvents"]);
      // Not a cursor: 400 to the endpoint's own token, 401 to a wrong one, as before it was read.
      const path = `/endpoints/${ids.mine}/events?after=abc`;
      expect((await callApi(url, "GET", path, { token: "mine-endpoint-token" })).status).toBe(400);
      expect((await callApi(url, "GET", path, { token: "not-a-token-of-anything" })).status).toBe(401);
      // A cursor of the right shape but past what a number holds: refused by the listing before any read.
      const huge = `/endpoints/${ids.mine}/events?after=9999999999999999`;
      expect((await callApi(url, "GET", huge, { token: "mine-endpoint-token" })).status).toBe(400);
      expect((await callApi(url, "GET", huge, { token: "not-a-token-of-anything" })).status).toBe(401);
    } finally {
      await new Promise((resolve) => counting.close(resolve));
    }
  });

  it("answers 401 without a credential and to a wrong one", async () => {
    const none = await get(ids.mine, "", null);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="webhooks"');
    expect((await get(ids.mine, "", "not-a-token-of-anything")).status).toBe(401);
  });

  it("pages with `next`, and refuses what is not a cursor or a query it cannot answer", async () => {
    const first = await get(ids.operator, "?limit=1", "operator-endpoint-token");
    expect(plantIds(first)).toEqual([1]);
    const second = await get(ids.operator, `?limit=1&after=${first.body.next}`, "operator-endpoint-token");
    expect(plantIds(second)).toEqual([4]);
    const end = await get(ids.operator, `?after=${second.body.next}`, "operator-endpoint-token");
    expect(end.body).toStrictEqual({ events: [], next: null });
    for (const query of [
      "?after=abc",
      "?limit=0",
      "?limit=1001",
      "?state=failed",
      "?after=1&since=2026-01-01T00:00:00Z",
    ])
      expect((await get(ids.operator, query, adminToken)).status, query).toBe(400);
  });

  it("answers 410 with the oldest cursor still served once retention deleted the events after a cursor", async () => {
    const secretOf = generateWebhookSecret();
    const endpoint = await outbox.addEndpoint({
      url: "https://receiver.example/swept",
      token: "swept-token",
      secrets: [secretOf],
    });
    for (const id of [10, 11, 12])
      await outbox.enqueue({ eventType: NEW_PLANT_EVENT, payload: { id, name: "Old" } });
    const old = await get(endpoint.id, "?limit=1", "swept-token");
    // Every delivery queued so far is delivered (a 2xx recorded), then swept as old enough.
    const policy = createRetryPolicy();
    const result = { startedAt: new Date(), durationMs: 1, status: 200, error: null, responseBody: "" };
    for (const claimed of await outbox.claimDue({ workerId: "w", limit: 1000, leaseMs: 60_000 }))
      await outbox.recordAttempts([{ deliveryId: claimed.id, workerId: "w", result }], { policy });
    for (const id of [13, 14])
      await outbox.enqueue({ eventType: NEW_PLANT_EVENT, payload: { id, name: "New" } });
    // A cutoff a minute ahead of now: every finished delivery counts as old.
    while ((await outbox.sweep({ olderThanMs: -60_000 })).deliveries > 0);

    const gone = await get(endpoint.id, `?after=${old.body.next}`, "swept-token");
    expect(gone.status).toBe(410);
    const kept = await get(endpoint.id, `?after=${gone.body.oldestCursor}`, "swept-token");
    expect(plantIds(kept)).toEqual([13, 14]);
  });
});
