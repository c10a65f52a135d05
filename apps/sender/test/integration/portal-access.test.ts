import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callApi, startPostgres, type TestPostgres } from "@plant-store/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliJson, runCli } from "../fixtures/cli-in-process.js";
import { expectDocumented } from "../fixtures/expect-documented.js";
import { type StoreProcess, startStore } from "../fixtures/store-process.js";

/**
 * Revocable portal access (issue 37): after `rotate-token` the old token was refused but a portal link
 * issued before still opened the portal for up to 7 days, and there was no signing out. Now a link is
 * exchanged once for a short session, and rotating the token, the operator's revocation (API and CLI)
 * and signing out end them, in the database every `serve` process reads.
 */
const adminToken = "admin-token-portal-access-0123";

function portalClient(base: string) {
  const call = (method: string, path: string, token: string | null, body?: unknown) =>
    callApi(base, method, path, { token, body });
  return {
    call,
    async subscriber(name: string): Promise<{ id: number; token: string }> {
      const added = await call("POST", "/subscribers", adminToken, { name });
      return { id: added.body.subscriber.id, token: added.body.token };
    },
    async link(subscriberId: number): Promise<string> {
      const issued = await call("POST", `/subscribers/${subscriberId}/portal-links`, adminToken);
      expect(issued.status).toBe(201);
      return new URL(issued.body.url).hash.slice(1);
    },
    exchange: (link: string) => call("POST", "/portal-sessions", null, { link }),
    async session(link: string): Promise<string> {
      const exchanged = await call("POST", "/portal-sessions", null, { link });
      expect(exchanged.status, exchanged.text).toBe(201);
      return exchanged.body.session;
    },
    me: async (credential: string) => (await call("GET", "/me", credential)).status,
  };
}

describe("portal links and sessions on a running store", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-portal-access-"));
  const db = join(dir, "store.db");
  let store: StoreProcess;
  let portal: ReturnType<typeof portalClient>;

  beforeAll(async () => {
    store = await startStore(["--db", db], { PLANT_STORE_ADMIN_TOKEN: adminToken });
    portal = portalClient(store.url);
  }, 60_000);

  afterAll(async () => {
    await store?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("ends a subscriber's links and sessions when its token is rotated, on the API and from the CLI", async () => {
    const s = await portal.subscriber("Rotated Roses");
    const unused = await portal.link(s.id);
    const rotated = await portal.call("POST", `/subscribers/${s.id}/rotate-token`, adminToken);
    expect(rotated.status).toBe(200);
    // The audit's finding: the link issued before the rotation still opened the portal.
    expect(await portal.me(unused)).toBe(401);
    expect((await portal.exchange(unused)).status).toBe(401);

    const session = await portal.session(await portal.link(s.id));
    const pending = await portal.link(s.id);
    expect(await portal.me(session)).toBe(200);
    const cli = await cliJson<{ token: string }>(["subscribers", "rotate-token", String(s.id), "--db", db]);
    expect(await portal.me(session)).toBe(401);
    expect((await portal.exchange(pending)).status).toBe(401);
    expect(await portal.me(cli.token)).toBe(200);
  });

  it("revokes every link and session of one subscriber on the operator's word, keeping its token and the others' access", async () => {
    const s = await portal.subscriber("Revoked Ferns");
    const other = await portal.subscriber("Untouched Tulips");
    const sessions = [
      await portal.session(await portal.link(s.id)),
      await portal.session(await portal.link(s.id)),
    ];
    const unused = await portal.link(s.id);
    const othersSession = await portal.session(await portal.link(other.id));

    const revoked = await portal.call("DELETE", `/subscribers/${s.id}/portal-links`, adminToken);
    expect(revoked.status).toBe(200);
    expectDocumented("delete", "/subscribers/{id}/portal-links", revoked.status, revoked.body);
    expect(revoked.body).toEqual({ revoked: 3 });
    for (const session of sessions) expect(await portal.me(session)).toBe(401);
    expect((await portal.exchange(unused)).status).toBe(401);
    expect(await portal.me(s.token)).toBe(200);
    expect(await portal.me(othersSession)).toBe(200);
    // A subscriber cannot revoke (its own or anyone's): the route does not exist for it.
    expect((await portal.call("DELETE", `/subscribers/${s.id}/portal-links`, s.token)).status).toBe(404);
    const missing = await portal.call("DELETE", "/subscribers/987654/portal-links", adminToken);
    expect(missing.status).toBe(404);
    expectDocumented("delete", "/subscribers/{id}/portal-links", missing.status, missing.body);

    // From the CLI, on the database the store reads.
    const again = await portal.session(await portal.link(s.id));
    const cli = await cliJson<{ revoked: number }>([
      "subscribers",
      "revoke-portal-links",
      String(s.id),
      "--db",
      db,
    ]);
    expect(cli.revoked).toBe(1);
    expect(await portal.me(again)).toBe(401);
    expect((await runCli(["subscribers", "revoke-portal-links", "987654", "--db", db])).code).toBe(1);
  });

  it("exchanges a link once, and signs a session out in the store", async () => {
    const s = await portal.subscriber("Signed-out Sage");
    const link = await portal.link(s.id);
    const session = await portal.session(link);
    const second = await portal.exchange(link);
    expect(second.status).toBe(401);
    expect(second.body.message).toBe(
      "This portal link was already used, has expired or was revoked: ask the store for a new one",
    );
    // Only a portal session signs out: the subscriber's token and the admin token are refused.
    for (const credential of [s.token, adminToken]) {
      const refused = await portal.call("DELETE", "/portal-sessions/current", credential);
      expect(refused.status, credential).toBe(403);
      expectDocumented("delete", "/portal-sessions/current", refused.status, refused.body);
    }
    const out = await portal.call("DELETE", "/portal-sessions/current", session);
    expect(out.status).toBe(204);
    expectDocumented("delete", "/portal-sessions/current", out.status, out.body);
    expect(await portal.me(session)).toBe(401);
    expect((await portal.call("DELETE", "/portal-sessions/current", session)).status).toBe(401);
    // Malformed sign-ins are a 400, not a guess.
    const malformed = await portal.call("POST", "/portal-sessions", null, { link: 42 });
    expect(malformed.status).toBe(400);
    expectDocumented("post", "/portal-sessions", malformed.status, malformed.body);
  });
});

describe("portal links on PostgreSQL with two serve processes", () => {
  let postgres: TestPostgres;
  const stores: StoreProcess[] = [];

  beforeAll(async () => {
    postgres = await startPostgres();
    const url = await postgres.createDatabase();
    for (let n = 0; n < 2; n++)
      stores.push(await startStore(["--db", url], { PLANT_STORE_ADMIN_TOKEN: adminToken }));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.stop()));
    await postgres?.stop();
  });

  it("spends a link once across processes, and a revocation on one ends the session on the other", async () => {
    const [a, b] = stores.map((store) => portalClient(store.url)) as [
      ReturnType<typeof portalClient>,
      ReturnType<typeof portalClient>,
    ];
    const s = await a.subscriber("Two-process Thyme");
    const link = await a.link(s.id);
    const session = await b.session(link);
    expect((await a.exchange(link)).status).toBe(401);
    expect(await a.me(session)).toBe(200);
    expect((await b.call("DELETE", `/subscribers/${s.id}/portal-links`, adminToken)).body).toEqual({
      revoked: 1,
    });
    expect(await a.me(session)).toBe(401);
    // Signing out on one process ends the session on the other.
    const next = await a.session(await b.link(s.id));
    expect((await b.call("DELETE", "/portal-sessions/current", next)).status).toBe(204);
    expect(await a.me(next)).toBe(401);
  }, 60_000);

  it("counts wrong links against the client like wrong credentials: 429 with Retry-After after its burst", async () => {
    const b = portalClient((stores[1] as StoreProcess).url);
    const s = await b.subscriber("Guessed Geranium");
    const good = await b.link(s.id);
    const guess = `psl_${"A".repeat(43)}`;
    // The default burst is 20 wrong credentials, then one a second.
    for (let n = 0; n < 20; n++) expect((await b.exchange(guess)).status).toBe(401);
    const throttled = await b.exchange(good);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
    expectDocumented("post", "/portal-sessions", throttled.status, throttled.body);
  });
});
