import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callApi } from "@plant-store/testing";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApp } from "../../src/create-admin-app.js";
import { openStore, type Store } from "../../src/open-store.js";
import { runCli } from "../fixtures/cli-in-process.js";
import { expectDocumented } from "../fixtures/expect-documented.js";
import { type StoreProcess, startStore } from "../fixtures/store-process.js";

/**
 * Caps per owner (issue 37): a subscriber filling its cap used to lock the operator out, the operator's
 * count being taken over every owner's endpoints ("The store already has 1000 endpoints"). Each owner is
 * counted alone now, for its endpoints, its rate-limited endpoints and its endpoints at one URL, and
 * each 409 says whose cap it is. Small caps here, the app's option; `serve`'s flag at the end.
 */
describe("the admin API's endpoint caps, per owner", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-caps-"));
  const adminToken = "admin-token-0123456789";
  let store: Store;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    store = await openStore(join(dir, "store.db"));
    server = createAdminApp({
      outbox: store.outbox,
      plants: store.plants,
      adminToken,
      registry: new Registry(),
      endpointCaps: {
        operator: { endpoints: 3, rateLimited: 2, perUrl: 2 },
        subscriber: { endpoints: 3, rateLimited: 1, perUrl: 1 },
      },
      // What the handshake answers does not matter here: every URL answers it.
      verifyEndpoint: async () => ({ verified: true, webhookId: "msg_ok", status: 200, durationMs: 1 }),
    }).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const add = (token: string, body: Record<string, unknown>) =>
    callApi(base, "POST", "/endpoints", { token, body: { token: "tok", ...body } });
  const patch = (token: string, id: number, body: Record<string, unknown>) =>
    callApi(base, "PATCH", `/endpoints/${id}`, { token, body });
  async function subscriber(name: string): Promise<{ id: number; token: string }> {
    const { subscriber, token } = await store.outbox.addSubscriber({ name });
    return { id: subscriber.id, token };
  }
  function expectRefused(answer: Awaited<ReturnType<typeof add>>, message: string, method = "post") {
    expect(answer.status, answer.text).toBe(409);
    expectDocumented(method, method === "post" ? "/endpoints" : "/endpoints/{id}", 409, answer.body);
    expect(answer.body.message).toBe(message);
    expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
  }

  it("lets the operator add its own endpoints after a subscriber filled its cap, and names whose cap each 409 is", async () => {
    const a = await subscriber("Acme");
    expect((await add(a.token, { url: "https://a.example/1" })).status).toBe(201);
    expect((await add(a.token, { url: "https://a.example/2" })).status).toBe(201);
    expect((await add(a.token, { url: "https://a.example/3" })).status).toBe(201);
    expectRefused(
      await add(a.token, { url: "https://a.example/4" }),
      "This subscriber already has 3 endpoints, the most a subscriber may have: remove one first",
    );
    // The operator's cap counts the operator's endpoints only: A's two do not count against it.
    for (const n of [1, 2, 3])
      expect((await add(adminToken, { url: `https://operator.example/${n}` })).status, `operator ${n}`).toBe(
        201,
      );
    expectRefused(
      await add(adminToken, { url: "https://operator.example/4" }),
      "The operator already has 3 endpoints, the most the operator may have: remove one first",
    );
    // Another subscriber is not held back by A, nor by the operator.
    const b = await subscriber("Bloom");
    expect((await add(b.token, { url: "https://b.example/1" })).status).toBe(201);
    expect((await store.outbox.listEndpoints()).length).toBe(7);
  });

  it("caps rate-limited endpoints per owner, on POST and on a PATCH that sets a limit", async () => {
    const c = await subscriber("Cactus");
    const first = await add(c.token, { url: "https://c.example/1", rateLimit: 5 });
    expect(first.status).toBe(201);
    const second = await add(c.token, { url: "https://c.example/2" });
    expect(second.status).toBe(201);
    const message =
      "This subscriber already has 1 rate-limited endpoints, the most a subscriber may have: remove a limit or an endpoint first";
    expectRefused(await add(c.token, { url: "https://c.example/3", rateLimit: 5 }), message);
    const id = second.body.endpoint.id as number;
    expectRefused(await patch(c.token, id, { rateLimit: 3 }), message, "patch");
    expect((await store.outbox.getEndpoint(id))?.rateLimit).toBeNull();
    // Changing the limit of the one already limited is no new rate-limited endpoint.
    expect((await patch(c.token, first.body.endpoint.id, { rateLimit: 7 })).status).toBe(200);
    // The operator's own count: one rate-limited endpoint of C's does not use the operator's.
    const d = await subscriber("Daisy");
    expect((await add(d.token, { url: "https://d.example/1", rateLimit: 1 })).status).toBe(201);
  });

  it("caps endpoints at one URL per owner, on POST and on a PATCH that moves one there", async () => {
    const e = await subscriber("Elm");
    const url = "https://shared.example/hook";
    expect((await add(e.token, { url })).status).toBe(201);
    const message =
      "This subscriber already has 1 endpoints at this URL, the most a subscriber may have: use the one it has";
    expectRefused(await add(e.token, { url }), message);
    const other = await add(e.token, { url: "https://elm.example/other" });
    expectRefused(await patch(e.token, other.body.endpoint.id, { url }), message, "patch");
    expect((await store.outbox.getEndpoint(other.body.endpoint.id))?.url).toBe("https://elm.example/other");
    // Another owner at the same URL is counted apart.
    const f = await subscriber("Fern");
    expect((await add(f.token, { url })).status).toBe(201);
  });
});

describe("serve's --max-subscriber-endpoints", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-caps-serve-"));
  const adminToken = "admin-token-0123456789";
  let store: StoreProcess | undefined;

  afterAll(async () => {
    await store?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is validated with the other settings, naming the flag and its variable", async () => {
    for (const value of ["0", "1001", "ten", "1e1"]) {
      const result = await runCli(
        ["serve", "--max-subscriber-endpoints", value, "--db", join(dir, "never.db")],
        {
          PLANT_STORE_ADMIN_TOKEN: adminToken,
        },
      );
      expect(result.code, value).toBe(2);
      expect(result.stderr).toContain("--max-subscriber-endpoints (PLANT_STORE_MAX_SUBSCRIBER_ENDPOINTS)");
    }
  });

  it("caps a subscriber's endpoints at the store it is given to, far below the operator's 1,000 by default", async () => {
    store = await startStore(["--db", join(dir, "store.db")], {
      PLANT_STORE_ADMIN_TOKEN: adminToken,
      PLANT_STORE_MAX_SUBSCRIBER_ENDPOINTS: "2",
    });
    const added = await callApi(store.url, "POST", "/subscribers", {
      token: adminToken,
      body: { name: "Gus" },
    });
    const token = added.body.token as string;
    // Unverified (nothing answers the handshake at these names), but counted all the same.
    for (const n of [1, 2]) {
      const answer = await callApi(store.url, "POST", "/endpoints", {
        token,
        body: { url: `https://gus-${n}.invalid/hook`, token: "tok" },
      });
      expect(answer.status, answer.text).toBe(201);
    }
    const refused = await callApi(store.url, "POST", "/endpoints", {
      token,
      body: { url: "https://gus-3.invalid/hook", token: "tok" },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      "This subscriber already has 2 endpoints, the most a subscriber may have: remove one first",
    );
  }, 60_000);
});
