import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHandshakeThrottle } from "@plant-store/api";
import { createNodeMiddleware } from "@plant-store/receiver";
import { createDeliveryClient, createSsrfGuard, verifyEndpoint } from "@plant-store/sender";
import { type ApiAnswer, callApi } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApp } from "../../src/create-admin-app.js";
import { openStore, type Store } from "../../src/open-store.js";
import { expectDocumented } from "../fixtures/expect-documented.js";

/**
 * Issue 37: `POST /endpoints/{id}/verify` was unthrottled, and its answers told a subscriber what the
 * store saw of any URL it chose (a 404's status, ECONNREFUSED, ETIMEDOUT, a redirect, the private
 * address a name resolves to): a port scanner from the store's address. The admin app in process, the
 * real `verifyEndpoint` over real HTTP on 127.0.0.1, and the throttle on a clock the test moves.
 */
describe("handshakes: limited per endpoint and per owner, and coarse to a subscriber", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-handshake-limits-"));
  const adminToken = "admin-token-0123456789";
  const receiverToken = "receiver-token-0123";
  const secret = generateWebhookSecret();
  let clock = 1_767_225_600_000;
  let store: Store;
  let app: Server;
  let base: string;
  const servers: Server[] = [];
  const client = createDeliveryClient();
  /** How many requests each target server received, by path. */
  const hits = new Map<string, number>();

  async function serve(listener: RequestListener): Promise<string> {
    const server = createServer((request, response) => {
      hits.set(request.url ?? "", (hits.get(request.url ?? "") ?? 0) + 1);
      listener(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const targets: Record<string, string> = {};

  beforeAll(async () => {
    const receiver = createNodeMiddleware({
      tokens: [receiverToken],
      secrets: [secret],
      onNewPlant: () => {},
    });
    targets.receiver = `${await serve(receiver)}/plant/webhook`;
    targets.open = `${await serve((_q, s) => s.writeHead(404).end('{"error":404}'))}/open`;
    targets.redirecting = `${await serve((_q, s) => s.writeHead(307, { location: "http://example.com/" }).end())}/moved`;
    targets.blackHoled = `${await serve(() => {})}/hole`;
    targets.echo = `${await serve((q, s) => q.pipe(s.writeHead(200, { "content-type": "application/json" })))}/echo`;
    // A port nothing listens on: a server started and closed.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    targets.closed = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/closed`;
    await new Promise((resolve) => closed.close(resolve));
    // A name the store's resolver puts on a private address: refused, nothing sent.
    targets.internal = "http://db.internal.example/hook";

    const loopback = createSsrfGuard({ allowPrivateTargets: true });
    const internal = createSsrfGuard({ resolve: async () => [{ address: "10.20.30.40", family: 4 }] });
    store = await openStore(join(dir, "store.db"));
    const admin = createAdminApp({
      outbox: store.outbox,
      plants: store.plants,
      adminToken,
      registry: new Registry(),
      verifyEndpoint: (endpoint) =>
        verifyEndpoint(endpoint, {
          client,
          ssrfGuard: new URL(endpoint.url).hostname.endsWith(".internal.example") ? internal : loopback,
          timeoutMs: 500,
        }),
      handshakeThrottle: createHandshakeThrottle(
        { perEndpoint: { count: 3, windowMs: 60_000 }, perOwner: { count: 12, windowMs: 60_000 } },
        () => clock,
      ),
    });
    app = admin.listen(0, "127.0.0.1");
    await new Promise((resolve) => app.once("listening", resolve));
    base = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    client.close();
    for (const server of [app, ...servers]) {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    }
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (method: string, path: string, token: string, body?: unknown) =>
    callApi(base, method, path, { token, body });
  const subscriber = async (name: string) =>
    (await call("POST", "/subscribers", adminToken, { name })).body.token as string;
  const addEndpoint = (token: string, url: string) =>
    call("POST", "/endpoints", token, { url, token: receiverToken, secrets: [secret] });
  const verifyAgain = (token: string, id: number) => call("POST", `/endpoints/${id}/verify`, token);
  const documented = (method: string, path: string, answer: ApiAnswer) =>
    expectDocumented(method, path, answer.status, answer.body);

  it("tells a subscriber one coarse reason for open, closed, black-holed, redirecting and echoing URLs alike", async () => {
    const token = await subscriber("Scanner Ltd");
    const seen: Record<string, unknown> = {};
    const ids: Record<string, number> = {};
    for (const name of ["open", "closed", "blackHoled", "redirecting", "echo"]) {
      const added = await addEndpoint(token, targets[name] as string);
      expect(added.status).toBe(201);
      documented("post", "/endpoints", added);
      ids[name] = added.body.endpoint.id;
      const { webhookId, ...rest } = added.body.verification;
      expect(webhookId).toMatch(/^msg_/);
      seen[name] = rest;
      const again = await verifyAgain(token, ids[name] as number);
      documented("post", "/endpoints/{id}/verify", again);
      const { webhookId: _again, ...restAgain } = again.body.verification;
      expect(restAgain).toStrictEqual(rest);
    }
    const coarse = {
      verified: false,
      reason: "no-valid-answer",
      message:
        "The URL did not answer the handshake as the contract says within 10 s: 200 with the challenge and a response proving the endpoint's signing secret",
    };
    expect(seen).toStrictEqual({
      open: coarse,
      closed: coarse,
      blackHoled: coarse,
      redirecting: coarse,
      echo: coarse,
    });
    // The operator still sees what happened at each (a minute later: its calls count for the owner too).
    clock += 60_000;
    const operator = async (name: string) =>
      (await verifyAgain(adminToken, ids[name] as number)).body.verification;
    expect(await operator("open")).toMatchObject({ reason: "status", status: 404 });
    expect(await operator("closed")).toMatchObject({
      reason: "no-answer",
      message: "No answer (ECONNREFUSED)",
    });
    expect(await operator("blackHoled")).toMatchObject({
      reason: "no-answer",
      message: "No answer (ETIMEDOUT)",
    });
    expect(await operator("redirecting")).toMatchObject({ reason: "redirect", status: 307 });
    expect(await operator("echo")).toMatchObject({ reason: "invalid-answer", status: 200 });
  });

  it("names no resolved address to a subscriber when the store refuses the URL's host; the operator sees it", async () => {
    const token = await subscriber("Internal Probe Ltd");
    const added = await addEndpoint(token, targets.internal as string);
    expect(added.body.verification).toMatchObject({
      verified: false,
      reason: "refused-target",
      message:
        "Not sent: the store does not send to this URL (its host does not resolve, or not to a public address)",
    });
    expect(added.text).not.toContain("10.20.30.40");
    const operator = await verifyAgain(adminToken, added.body.endpoint.id);
    expect(operator.body.verification.message).toContain("10.20.30.40");
  });

  it("verifies a subscriber's endpoint whose receiver proves the secret, and says nothing more than that", async () => {
    const token = await subscriber("Honest Plants");
    const added = await addEndpoint(token, targets.receiver as string);
    expect(added.body.verification).toMatchObject({ verified: true, status: 200 });
    expect(added.body.endpoint.verified).toBe(true);
  });

  it("answers 429 with Retry-After past 3 handshakes a minute to one endpoint, and sends nothing then", async () => {
    const token = await subscriber("Eager Plants");
    const added = await addEndpoint(token, targets.open as string);
    const id = added.body.endpoint.id as number;
    const before = hits.get("/open") ?? 0;
    for (let i = 0; i < 2; i++) expect((await verifyAgain(token, id)).status).toBe(200);
    clock += 30_000;
    const refused = await verifyAgain(token, id);
    expect(refused.status).toBe(429);
    documented("post", "/endpoints/{id}/verify", refused);
    // The first of the three leaves the sliding minute 30 s from now.
    expect(refused.headers.get("retry-after")).toBe("30");
    expect(refused.body.message).toBe(`Too many handshakes to endpoint ${id} for now: try again in 30 s`);
    expect(hits.get("/open")).toBe(before + 2);
    // The operator's calls count against the same endpoint.
    expect((await verifyAgain(adminToken, id)).status).toBe(429);
    clock += 30_000;
    expect((await verifyAgain(token, id)).status).toBe(200);
    expect(hits.get("/open")).toBe(before + 3);
    clock += 60_000;
  });

  it("limits one owner's endpoints together: 12 a minute, the add past it unverified and unsent; others unaffected", async () => {
    const token = await subscriber("Fifty Endpoints Ltd");
    // Each at its own path of the echo server: a subscriber may have only 3 endpoints at one URL.
    const echoHits = () =>
      [...hits].filter(([path]) => path.startsWith("/echo/")).reduce((sum, [, count]) => sum + count, 0);
    const before = echoHits();
    // Twelve endpoints at one echo server: twelve handshakes, none verified.
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) {
      const added = await addEndpoint(token, `${targets.echo}/${i}`);
      expect(added.body.verification).toMatchObject({ verified: false, reason: "no-valid-answer" });
      ids.push(added.body.endpoint.id);
    }
    const thirteenth = await addEndpoint(token, `${targets.echo}/12`);
    expect(thirteenth.status).toBe(201);
    documented("post", "/endpoints", thirteenth);
    expect(thirteenth.body.endpoint.verified).toBe(false);
    expect(thirteenth.body.verification).toStrictEqual({
      verified: false,
      reason: "throttled",
      message: "Not sent: Too many handshakes to this owner's endpoints for now: try again in 60 s",
    });
    const again = await verifyAgain(token, ids[0] as number);
    expect(again.status).toBe(429);
    expect(again.headers.get("retry-after")).toBe("60");
    expect(echoHits()).toBe(before + 12);
    // Another owner's handshakes are its own.
    const other = await subscriber("Bystander Plants");
    expect((await addEndpoint(other, targets.receiver as string)).body.verification).toMatchObject({
      verified: true,
    });
    clock += 60_000;
    expect((await verifyAgain(token, thirteenth.body.endpoint.id)).status).toBe(200);
  });
});
