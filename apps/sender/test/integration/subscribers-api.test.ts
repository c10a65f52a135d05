import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPortalAccess } from "@plant-store/api";
import { createRetryPolicy, type Outbox } from "@plant-store/sender";
import { type ApiAnswer, callApi } from "@plant-store/testing";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApp } from "../../src/create-admin-app.js";
import { openStore, type Store } from "../../src/open-store.js";
import { expectDocumented } from "../fixtures/expect-documented.js";

/**
 * Two subscribers through the admin API, and every route a subscriber may use tried with the other's
 * ids (and the operator's): each answers exactly as for an id that does not exist, and nothing of the
 * other changes. The verification handshake is stood in for by its outcome (the app's option), since
 * what this proves is who may see and change what; the handshake itself is tested against real servers.
 */
describe("subscribers through the admin API: isolation, tokens and portal links", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-subscribers-"));
  const adminToken = "admin-token-0123456789";
  let clock = Date.now();
  let store: Store;
  let outbox: Outbox;
  let server: Server;
  let base: string;
  // Which URLs "answer the handshake": the app's option stands in for the network here.
  const answering = new Set<string>();

  beforeAll(async () => {
    store = await openStore(join(dir, "store.db"));
    outbox = store.outbox;
    const app = createAdminApp({
      outbox,
      plants: store.plants,
      adminToken,
      registry: new Registry(),
      portal: createPortalAccess(store.portalCredentials, { now: () => clock }),
      verifyEndpoint: async (endpoint) => {
        // The URL changed to another's while the handshake ran: the old URL's answer must not count.
        if (endpoint.url === "https://racy.example/hook")
          await outbox.updateEndpoint(endpoint.id, { url: "https://victim.example/hook" });
        return answering.has(endpoint.url)
          ? { verified: true, webhookId: "msg_ok", status: 200, durationMs: 1 }
          : {
              verified: false,
              reason: "status",
              message: "Answered 404, not 2xx",
              webhookId: "msg_refused",
              status: 404,
              durationMs: 1,
            };
      },
    });
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (method: string, path: string, token: string | null, body?: unknown) =>
    callApi(base, method, path, { token, body });
  const documented = (method: string, path: string, answer: ApiAnswer) =>
    expectDocumented(method, path, answer.status, answer.body);

  /** Everything the operator sees of a subscriber: endpoints, deliveries and each delivery's attempts. */
  async function snapshot(subscriberId: number) {
    const endpoints = await outbox.listEndpoints({ subscriberId });
    const deliveries = await outbox.listDeliveries({ subscriberId, limit: 1000 });
    const attempts = await Promise.all(deliveries.map((delivery) => outbox.listAttempts(delivery.id)));
    return JSON.stringify({ endpoints, deliveries, attempts });
  }

  /** Claims and records a failed attempt for every due delivery, so attempts exist to be read. */
  async function attemptAll() {
    const policy = createRetryPolicy({ schedule: "1h", jitter: 0 });
    const result = { startedAt: new Date(), durationMs: 1, status: 500, error: null, responseBody: "down" };
    for (const delivery of await outbox.claimDue({ workerId: "test", limit: 100, leaseMs: 60_000 }))
      await outbox.recordAttempts([{ deliveryId: delivery.id, workerId: "test", result }], { policy });
  }

  it("keeps two subscribers apart on every route and every kind of id, answering another's as a missing one", async () => {
    const addedA = await call("POST", "/subscribers", adminToken, { name: "Acme Plants" });
    const addedB = await call("POST", "/subscribers", adminToken, { name: "Bloom & Co" });
    expect(addedA.status).toBe(201);
    documented("post", "/subscribers", addedA);
    const a = { id: addedA.body.subscriber.id as number, token: addedA.body.token as string };
    const b = { id: addedB.body.subscriber.id as number, token: addedB.body.token as string };
    expect(a.token).toMatch(/^pss_/);
    const me = await call("GET", "/me", a.token);
    documented("get", "/me", me);
    expect(me.body).toEqual({ kind: "subscriber", subscriber: addedA.body.subscriber });

    // Each adds an endpoint with its own token: owned by it, verified only when its server answers.
    answering.add("https://a.example/hook");
    const endpointA = await call("POST", "/endpoints", a.token, {
      url: "https://a.example/hook",
      token: "a-receiver-token",
    });
    expect(endpointA.status).toBe(201);
    documented("post", "/endpoints", endpointA);
    expect(endpointA.body.endpoint).toMatchObject({ subscriberId: a.id, verified: true });
    expect(endpointA.body.verification).toEqual({ verified: true, webhookId: "msg_ok", status: 200 });
    const endpointB = await call("POST", "/endpoints", b.token, {
      url: "https://b.example/hook",
      token: "b-receiver-token",
    });
    expect(endpointB.body.endpoint).toMatchObject({ subscriberId: b.id, verified: false });
    // What the store saw of B's URL (a 404) stays the operator's: B gets the one coarse reason.
    expect(endpointB.body.verification).toEqual({
      verified: false,
      reason: "no-valid-answer",
      message:
        "The URL did not answer the handshake as the contract says within 10 s: 200 with the challenge and a response proving the endpoint's signing secret",
      webhookId: "msg_refused",
    });
    // B's server starts answering: "verify again" verifies it.
    answering.add("https://b.example/hook");
    const again = await call("POST", `/endpoints/${endpointB.body.endpoint.id}/verify`, b.token);
    documented("post", "/endpoints/{id}/verify", again);
    expect(again.body.endpoint.verified).toBe(true);
    const operatorEndpoint = await call("POST", "/endpoints", adminToken, {
      url: "https://operator.example/hook",
      token: "operator-receiver-token",
    });
    expect(operatorEndpoint.body.endpoint).toMatchObject({ subscriberId: null, verified: true });
    expect(operatorEndpoint.body.verification).toBeUndefined();

    // Deliveries: a plant for everyone, and an example each; then one attempt each.
    expect((await call("POST", "/plants", adminToken, { name: "Fern" })).body.queued).toBe(3);
    const ids = {
      endpointA: endpointA.body.endpoint.id as number,
      endpointB: endpointB.body.endpoint.id as number,
      operatorEndpoint: operatorEndpoint.body.endpoint.id as number,
    };
    const example = await call("POST", `/endpoints/${ids.endpointA}/send-example`, a.token);
    documented("post", "/endpoints/{id}/send-example", example);
    await call("POST", `/endpoints/${ids.endpointB}/send-example`, b.token);
    await attemptAll();

    // Each sees only its own.
    const listedA = await call("GET", "/endpoints", a.token);
    documented("get", "/endpoints", listedA);
    expect(listedA.body.endpoints.map((e: { id: number }) => e.id)).toEqual([ids.endpointA]);
    const deliveriesA = await call("GET", "/deliveries", a.token);
    documented("get", "/deliveries", deliveriesA);
    expect(deliveriesA.body.deliveries.map((d: { endpointId: number }) => d.endpointId)).toEqual([
      ids.endpointA,
      ids.endpointA,
    ]);
    const health = await call("GET", "/endpoint-health", a.token);
    expect(health.body.endpoints.map((e: { endpointId: number }) => e.endpointId)).toEqual([ids.endpointA]);
    const deliveriesB = (await call("GET", "/deliveries", b.token)).body.deliveries as Array<{ id: number }>;
    const deliveryOfA = deliveriesA.body.deliveries[0].id as number;
    const ownDelivery = await call("GET", `/deliveries/${deliveryOfA}`, a.token);
    documented("get", "/deliveries/{id}", ownDelivery);
    expect(ownDelivery.body.attempts).toHaveLength(1);
    const operatorsDelivery = (await outbox.listDeliveries({ endpointId: ids.operatorEndpoint }))[0]?.id;

    // The matrix: A acting on B's ids and the operator's; each answer must be byte for byte the answer
    // for an id that does not exist, and documented.
    const missing = 987_654;
    const otherEndpoints = [ids.endpointB, ids.operatorEndpoint];
    const otherDeliveries = [...deliveriesB.map((d) => d.id), operatorsDelivery as number];
    const endpointRoutes: Array<[string, string, string, unknown?]> = [
      ["GET", "/endpoints/{id}", "get"],
      ["PATCH", "/endpoints/{id}", "patch", { eventTypes: ["newPlant"] }],
      // Moving another's endpoint to one's own URL would take its deliveries: a 404 like the rest.
      ["PATCH", "/endpoints/{id}", "patch", { url: "https://hijack.example/hook" }],
      ["DELETE", "/endpoints/{id}", "delete"],
      ["POST", "/endpoints/{id}/disable", "post"],
      ["POST", "/endpoints/{id}/enable", "post"],
      ["POST", "/endpoints/{id}/rotate-secret", "post"],
      ["POST", "/endpoints/{id}/verify", "post"],
      ["POST", "/endpoints/{id}/send-example", "post"],
    ];
    const deliveryRoutes: Array<[string, string, string]> = [
      ["GET", "/deliveries/{id}", "get"],
      ["POST", "/deliveries/{id}/retry", "post"],
    ];
    const before = { b: await snapshot(b.id), all: await outbox.listDeliveries({ limit: 1000 }) };
    let tried = 0;
    for (const [routes, others] of [
      [endpointRoutes, otherEndpoints],
      [deliveryRoutes, otherDeliveries],
    ] as const)
      for (const [method, template, lower, body] of routes as Array<[string, string, string, unknown?]>) {
        const expected = await call(method, template.replace("{id}", String(missing)), a.token, body);
        expect(expected.status, `${method} ${template} for a missing id`).toBe(404);
        documented(lower, template, expected);
        for (const id of others) {
          const answer = await call(method, template.replace("{id}", String(id)), a.token, body);
          expect({ status: answer.status, text: answer.text }, `${method} ${template} on ${id}`).toEqual({
            status: expected.status,
            text: expected.text,
          });
          tried += 1;
        }
      }
    for (const endpointId of otherEndpoints) {
      const replay = await call("POST", "/replay", a.token, { endpointId, since: "2020-01-01T00:00:00Z" });
      const replayMissing = await call("POST", "/replay", a.token, {
        endpointId: missing,
        since: "2020-01-01T00:00:00Z",
      });
      expect(replay.status).toBe(404);
      expect(replay.text).toBe(replayMissing.text);
      documented("post", "/replay", replay);
      // A filter naming another's endpoint finds nothing of it.
      const filtered = await call("GET", `/deliveries?endpointId=${endpointId}`, a.token);
      expect(filtered.body.deliveries).toEqual([]);
    }
    expect(tried).toBe(endpointRoutes.length * 2 + deliveryRoutes.length * otherDeliveries.length);
    // Nothing of B's (or anyone's) changed, and nothing was queued.
    expect(await snapshot(b.id)).toBe(before.b);
    expect(await outbox.listDeliveries({ limit: 1000 })).toEqual(before.all);

    // Subscriber ids and the operator's routes: a subscriber's credential is answered as for a path that
    // does not exist, whichever subscriber the id names.
    const nowhere = await call("GET", "/nowhere-at-all", a.token);
    expect(nowhere.status).toBe(404);
    for (const [method, path, body] of [
      ["GET", "/subscribers"],
      ["POST", "/subscribers", { name: "Mallory" }],
      ["GET", `/subscribers/${a.id}`],
      ["GET", `/subscribers/${b.id}`],
      ["DELETE", `/subscribers/${b.id}`],
      ["POST", `/subscribers/${b.id}/rotate-token`],
      ["POST", `/subscribers/${a.id}/portal-links`],
      ["GET", "/metrics"],
      ["GET", "/plants"],
      ["POST", "/plants", { name: "Weed" }],
      ["POST", "/login-codes"],
      ["POST", "/listen", {}],
      ["OPTIONS", "/endpoints"],
    ] as Array<[string, string, unknown?]>) {
      const answer = await call(method, path, a.token, body);
      expect({ status: answer.status, text: answer.text }, `${method} ${path}`).toEqual({
        status: 404,
        text: nowhere.text,
      });
    }
    expect((await outbox.listSubscribers()).map((s) => s.name)).toEqual(["Acme Plants", "Bloom & Co"]);
    expect(await outbox.authenticateSubscriber(b.token)).toMatchObject({ id: b.id });
    expect((await call("GET", "/plants", adminToken)).body.plants).toHaveLength(1);

    // Its own objects: changed as the operator's would be.
    const rotated = await call("POST", `/endpoints/${ids.endpointA}/rotate-secret`, a.token);
    expect(rotated.status).toBe(200);
    expect(rotated.body.endpoint.secretCount).toBe(2);
    expect((await call("POST", `/deliveries/${deliveryOfA}/retry`, a.token)).status).toBe(200);
    // The operator still sees everything.
    expect((await call("GET", "/endpoints", adminToken)).body.endpoints).toHaveLength(3);
    expect((await call("GET", `/deliveries/${deliveriesB[0]?.id}`, adminToken)).status).toBe(200);
  });

  it("exchanges a portal link once for a session, which lasts until it expires, and refuses a link used as a bearer", async () => {
    const created = await call("POST", "/subscribers", adminToken, { name: "Cactus Club" });
    const id = created.body.subscriber.id as number;
    const link = await call("POST", `/subscribers/${id}/portal-links`, adminToken);
    expect(link.status).toBe(201);
    documented("post", "/subscribers/{id}/portal-links", link);
    const url = new URL(link.body.url);
    expect(url.pathname).toBe("/portal");
    const credential = url.hash.slice(1);
    expect(credential).toMatch(/^psl_[A-Za-z0-9_-]{43}$/);
    // The default hour to open it.
    expect(Date.parse(link.body.expiresAt) - clock).toBe(3_600_000);
    // The link itself opens nothing: it is exchanged.
    expect((await call("GET", "/me", credential)).status).toBe(401);
    const session = await call("POST", "/portal-sessions", null, { link: credential });
    expect(session.status).toBe(201);
    documented("post", "/portal-sessions", session);
    expect(session.body.session).toMatch(/^pps_/);
    expect(Date.parse(session.body.expiresAt) - clock).toBe(3_600_000);
    const me = await call("GET", "/me", session.body.session);
    expect(me.body).toEqual({ kind: "subscriber", subscriber: created.body.subscriber });
    expect((await call("GET", "/subscribers", session.body.session)).status).toBe(404);
    // A second use of the same link is refused.
    const again = await call("POST", "/portal-sessions", null, { link: credential });
    expect(again.status).toBe(401);
    documented("post", "/portal-sessions", again);
    // Expired: a second before its end the session works, at its end it does not.
    const started = clock;
    clock = started + 3_599_000;
    expect((await call("GET", "/me", session.body.session)).status).toBe(200);
    clock = started + 3_600_000;
    expect((await call("GET", "/me", session.body.session)).status).toBe(401);
    // A link not exchanged in its time is refused.
    const late = await call("POST", `/subscribers/${id}/portal-links`, adminToken, { expiresInSeconds: 60 });
    clock += 60_000;
    const lateLink = new URL(late.body.url).hash.slice(1);
    expect((await call("POST", "/portal-sessions", null, { link: lateLink })).status).toBe(401);
    clock = started;
    const refusedTtl = await call("POST", `/subscribers/${id}/portal-links`, adminToken, {
      expiresInSeconds: 10,
    });
    expect(refusedTtl.status).toBe(400);
    documented("post", "/subscribers/{id}/portal-links", refusedTtl);
    // A removed subscriber's session ends with it.
    const fresh = await call("POST", `/subscribers/${id}/portal-links`, adminToken);
    const live = await call("POST", "/portal-sessions", null, {
      link: new URL(fresh.body.url).hash.slice(1),
    });
    expect((await call("GET", "/me", live.body.session)).status).toBe(200);
    expect((await call("DELETE", `/subscribers/${id}`, adminToken)).status).toBe(204);
    expect((await call("GET", "/me", live.body.session)).status).toBe(401);
    expect((await call("POST", `/subscribers/${id}/portal-links`, adminToken)).status).toBe(404);
  });

  it("shows a subscriber's token once, and a rotation refuses the old one", async () => {
    const created = await call("POST", "/subscribers", adminToken, { name: "Elm Street Nursery" });
    const id = created.body.subscriber.id as number;
    const listed = await call("GET", "/subscribers", adminToken);
    documented("get", "/subscribers", listed);
    expect(listed.text).not.toContain("pss_");
    const shown = await call("GET", `/subscribers/${id}`, adminToken);
    documented("get", "/subscribers/{id}", shown);
    expect(shown.text).not.toContain("pss_");
    const rotated = await call("POST", `/subscribers/${id}/rotate-token`, adminToken);
    documented("post", "/subscribers/{id}/rotate-token", rotated);
    expect((await call("GET", "/me", created.body.token)).status).toBe(401);
    expect((await call("GET", "/me", rotated.body.token)).body.subscriber.id).toBe(id);
    // A URL changed during the handshake: the endpoint stays unverified, and the answer says why.
    answering.add("https://racy.example/hook");
    const racy = await call("POST", "/endpoints", rotated.body.token, {
      url: "https://racy.example/hook",
      token: "racy-token",
    });
    expect(racy.body.verification).toMatchObject({ verified: false, reason: "url-changed" });
    documented("post", "/endpoints", racy);
    expect(await outbox.getEndpoint(racy.body.endpoint.id)).toMatchObject({
      url: "https://victim.example/hook",
      verified: false,
    });
    const refused = await call("POST", "/subscribers", adminToken, { name: "  " });
    expect(refused.status).toBe(400);
    documented("post", "/subscribers", refused);
    expect((await call("GET", "/metrics", adminToken)).status).toBe(200);
  });
});
