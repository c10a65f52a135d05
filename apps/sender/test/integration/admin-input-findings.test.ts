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
import { expectDocumented } from "../fixtures/expect-documented.js";

/**
 * The third audit's low findings on input (issue 37): a subscriber's name with a control character, ids
 * that are not decimal digits, and a body in a charset other than UTF-8. Each used to be taken (or to
 * be a 500); each is a 400 or 415 with the Error body now, and nothing is written.
 */
describe("the admin API's input findings of the third audit", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-input-findings-"));
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
    }).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = (method: string, path: string, body?: unknown) =>
    callApi(base, method, path, { token: adminToken, body });

  it("refuses a subscriber's name with a control character with 400 naming the field, and adds nobody", async () => {
    for (const name of ["Acme\u0000Plants", "Acme\u0007", "Bell\u001bc", "A\nB", "Del\u007f"]) {
      const refused = await call("POST", "/subscribers", { name });
      expect(refused.status, JSON.stringify(name)).toBe(400);
      expectDocumented("post", "/subscribers", refused.status, refused.body);
      expect(refused.body.message).toMatch(/^Invalid subscriber: name: .*control characters/);
    }
    expect(await store.outbox.listSubscribers()).toEqual([]);
    // Spaces and tabs around a name are trimmed as before; letters of any script are fine.
    expect((await call("POST", "/subscribers", { name: " Grüne Wiese 🌱 " })).status).toBe(201);
  });

  it("takes ids as decimal digits only: 0x1, ' 1', '1e0' and their kin are a 400 on every route with an id", async () => {
    const endpoint = await call("POST", "/endpoints", { url: "https://a.example/hook", token: "tok" });
    expect(endpoint.body.endpoint.id).toBe(1);
    const subscriber =
      (await store.outbox.listSubscribers())[0] ??
      (await store.outbox.addSubscriber({ name: "One" })).subscriber;
    expect(subscriber.id).toBe(1);
    // Each of these names id 1 to Number(): the routes used to act on endpoint 1 or subscriber 1.
    const spellings = ["0x1", " 1", "1 ", "1e0", "1.0", "+1", "0b1", "0o1", "１"];
    const routes: Array<[string, string, string, unknown?]> = [
      ["GET", "/endpoints/{id}", "get"],
      ["PATCH", "/endpoints/{id}", "patch", { eventTypes: ["newPlant"] }],
      ["POST", "/endpoints/{id}/disable", "post"],
      ["POST", "/endpoints/{id}/send-example", "post"],
      ["GET", "/deliveries/{id}", "get"],
      ["GET", "/subscribers/{id}", "get"],
      ["POST", "/subscribers/{id}/rotate-token", "post"],
      ["DELETE", "/subscribers/{id}", "delete"],
    ];
    for (const spelling of spellings)
      for (const [method, template, lower, body] of routes) {
        const path = template.replace("{id}", encodeURIComponent(spelling));
        const answer = await call(method, path, body);
        expect(answer.status, `${method} ${path}`).toBe(400);
        expectDocumented(lower, template, answer.status, answer.body);
        expect(answer.body.message, `${method} ${path}`).toBe(
          "Invalid id: must be decimal digits, 1 or more",
        );
      }
    // The query's and the replay body's endpoint ids too.
    for (const spelling of spellings) {
      const listed = await call("GET", `/deliveries?endpointId=${encodeURIComponent(spelling)}`);
      expect(listed.status, spelling).toBe(400);
      const replayed = await call("POST", "/replay", { endpointId: spelling, since: "2020-01-01T00:00:00Z" });
      expect(replayed.status, spelling).toBe(400);
    }
    // Nothing acted on: the endpoint is active, the subscriber is there.
    expect(await store.outbox.getEndpoint(1)).toMatchObject({ status: "active", eventTypes: null });
    expect(await store.outbox.getSubscriber(1)).toBeDefined();
    // Plain digits still work, a leading zero included (it is still decimal).
    expect((await call("GET", "/endpoints/1")).status).toBe(200);
    expect((await call("GET", "/endpoints/01")).status).toBe(200);
    expect((await call("GET", "/deliveries?endpointId=1")).status).toBe(200);
    expect((await call("POST", "/replay", { endpointId: 1, since: "2020-01-01T00:00:00Z" })).status).toBe(
      200,
    );
  });

  it("refuses a body declared in a charset other than UTF-8 with 415, and takes UTF-8 however it is spelt", async () => {
    const body = Buffer.from(JSON.stringify({ name: "Fern" }), "utf16le");
    for (const type of [
      "application/json; charset=utf-16",
      "application/json; charset=UTF-16LE",
      'application/json; charset="utf-16"',
      "application/json; charset=iso-8859-1",
      "application/json;charset=latin1",
    ]) {
      const response = await fetch(`${base}/plants`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": type },
        body,
      });
      const answer = (await response.json()) as { error: string; message: string };
      expect(response.status, type).toBe(415);
      expectDocumented("post", "/plants", response.status, answer);
      expect(answer.message).toBe("Send the body as application/json in UTF-8");
    }
    expect((await call("GET", "/plants")).body.plants).toEqual([]);
    // The page's sign-in reads its own body: the same rule.
    const signIn = await fetch(`${base}/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-16" },
      body: Buffer.from(JSON.stringify({ token: adminToken }), "utf16le"),
    });
    expect(signIn.status).toBe(415);
    expectDocumented("post", "/sessions", signIn.status, await signIn.json());
    for (const type of [
      "application/json; charset=utf-8",
      'application/json; charset="UTF-8"',
      "application/json",
    ]) {
      const response = await fetch(`${base}/plants`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": type },
        body: JSON.stringify({ name: "Fern" }),
      });
      expect(response.status, type).toBe(201);
    }
  });
});
