import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAuthThrottle } from "@plant-store/app-shell";
import { createSsrfGuard, type Outbox } from "@plant-store/sender";
import { generateWebhookSecret } from "@plant-store/types";
import fc from "fast-check";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApp } from "../../src/create-admin-app.js";
import { openStore, type Store } from "../../src/open-store.js";

const RUNS = process.env.PLANT_SOAK === "1" ? 2000 : 300;

describe("the admin API under hostile input", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-hostile-"));
  const adminToken = "admin-token-0123456789";
  let outbox: Outbox;
  let store: Store;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    store = await openStore(join(dir, "store.db"));
    outbox = store.outbox;
    const guard = createSsrfGuard();
    const app = createAdminApp({
      outbox,
      plants: store.plants,
      adminToken,
      registry: new Registry(),
      // These tests send hundreds of wrong tokens from one address, which the default throttle would
      // answer with 429 after 20 (admin-api.test.ts proves that): here, what each one is answered.
      throttle: createAuthThrottle({ credential: "admin token", burst: 1_000_000 }),
      checkTarget: (url) => guard.check(url),
    });
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Something to find, disable and replay, so valid-looking ids reach the outbox.
    await outbox.addEndpoint({
      url: "https://receiver.example/plant/webhook",
      token: "tok",
      secrets: [generateWebhookSecret()],
    });
    await store.plants.add({ name: "Seed plant" });
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const snapshot = async () =>
    JSON.stringify({
      plants: await store.plants.list(100_000),
      endpoints: await outbox.listEndpoints(),
      deliveries: await outbox.listDeliveries({ limit: 100_000 }),
    });

  async function send(
    method: string,
    path: string,
    contentType: string | undefined,
    body?: string | Uint8Array,
  ) {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(contentType === undefined ? {} : { "content-type": contentType }),
      },
      ...(body === undefined || method === "GET" || method === "HEAD" ? {} : { body }),
    });
    return { status: response.status, text: await response.text() };
  }

  const expectErrorBody = (status: number, text: string) => {
    const body = JSON.parse(text) as { error: unknown; message: unknown };
    expect(body).toEqual({ error: status, message: expect.any(String) });
  };

  it("refuses a missing, empty, wrong, almost-right or differently-schemed token with 401 and writes nothing", async () => {
    const before = await snapshot();
    for (const authorization of [
      undefined,
      "",
      "Bearer",
      "Bearer ",
      "Bearer wrong-token-0123456789",
      `Bearer ${adminToken.slice(0, -1)}`,
      `Bearer ${adminToken}x`,
      `Basic ${Buffer.from(`admin:${adminToken}`).toString("base64")}`,
      adminToken,
    ]) {
      for (const [method, path] of [
        ["GET", "/plants"],
        ["POST", "/plants"],
        ["POST", "/endpoints"],
        ["POST", "/replay"],
        ["POST", "/endpoints/1/disable"],
        ["DELETE", "/endpoints/1"],
        ["PATCH", "/endpoints/1"],
        ["GET", "/deliveries/1"],
      ] as const) {
        const response = await fetch(`${base}${path}`, {
          method,
          headers: {
            ...(authorization === undefined ? {} : { authorization }),
            "content-type": "application/json",
          },
          ...(method === "POST" || method === "PATCH"
            ? { body: JSON.stringify({ name: "Intruder", endpointId: 1, token: "intruder-token" }) }
            : {}),
        });
        const text = await response.text();
        expect(response.status, `${method} ${path} with ${authorization}`).toBe(401);
        expectErrorBody(401, text);
        expect(text).not.toContain(adminToken);
      }
    }
    expect(await snapshot()).toBe(before);
  });

  it("refuses endpoints on loopback, private, link-local, mapped and unspecified addresses and names resolving to them", async () => {
    const before = await snapshot();
    for (const host of [
      "127.0.0.1",
      "[::1]",
      "10.0.0.1",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "[::ffff:127.0.0.1]",
      "0.0.0.0",
      "localhost",
    ]) {
      const { status, text } = await send(
        "POST",
        "/endpoints",
        "application/json",
        JSON.stringify({ url: `http://${host}:9/plant/webhook`, token: "tok" }),
      );
      expect(status, host).toBe(400);
      expectErrorBody(400, text);
      expect(text).toContain("non-public");
    }
    expect(await snapshot()).toBe(before);
  });

  // A public address, so only the credentials can be the reason for a refusal.
  const credentialUrlArb = fc
    .record({
      scheme: fc.constantFrom("http", "https", "HTTP"),
      user: fc.oneof(fc.constant(""), fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 12 })),
      password: fc.oneof(fc.constant(""), fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 12 })),
      host: fc.constantFrom("93.184.216.34", "receiver.example", "[2606:4700::1111]"),
    })
    .filter(({ user, password }) => user !== "" || password !== "")
    .map(({ scheme, user, password, host }) => ({
      password,
      url: `${scheme}://${encodeURIComponent(user)}${password === "" ? "" : `:${encodeURIComponent(password)}`}@${host}/plant/webhook`,
    }));

  /**
   * Adding an endpoint on `url` (POST) and moving one to it (PATCH) are both refused with a 400 error body
   * that gives `reason`: a move takes only what adding takes. Returns both bodies' texts.
   */
  async function expectAddAndMoveRefused(url: string, reason: string): Promise<string[]> {
    const texts: string[] = [];
    for (const [method, path, body] of [
      ["POST", "/endpoints", { url, token: "tok" }],
      ["PATCH", "/endpoints/1", { url }],
    ] as const) {
      const { status, text } = await send(method, path, "application/json", JSON.stringify(body));
      expect(status, `${method} ${url}`).toBe(400);
      expectErrorBody(400, text);
      expect(text).toContain(reason);
      texts.push(text);
    }
    return texts;
  }

  it("refuses endpoint URLs carrying credentials with 400 on POST and PATCH, never echoing them, and stores nothing", async () => {
    const before = await snapshot();
    await fc.assert(
      fc.asyncProperty(credentialUrlArb, async ({ url, password }) => {
        for (const text of await expectAddAndMoveRefused(url, "must not contain credentials"))
          if (password.length > 3) expect(text).not.toContain(encodeURIComponent(password));
      }),
      { numRuns: Math.min(RUNS, 100) },
    );
    expect(await snapshot()).toBe(before);
  });

  it("refuses URLs hiding a non-public address in unusual IPv6 forms with 400 and stores nothing", async () => {
    const before = await snapshot();
    const ipv4 = fc.constantFrom(
      [127, 0, 0, 1],
      [10, 1, 2, 3],
      [192, 168, 0, 1],
      [169, 254, 169, 254],
      [172, 16, 0, 1],
      [0, 0, 0, 0],
      [100, 64, 0, 1],
    );
    const hex = ([a, b, c, d]: readonly number[]) =>
      `${(((a ?? 0) << 8) | (b ?? 0)).toString(16)}:${(((c ?? 0) << 8) | (d ?? 0)).toString(16)}`;
    const formArb = fc.oneof(
      ipv4.map((v4) => `[::ffff:${v4.join(".")}]`),
      ipv4.map((v4) => `[::ffff:${hex(v4)}]`),
      ipv4.map((v4) => `[0:0:0:0:0:ffff:${hex(v4)}]`),
      ipv4.map((v4) => `[0000:0000:0000:0000:0000:FFFF:${v4.join(".")}]`),
      ipv4.map((v4) => `[::${v4.join(".")}]`),
      ipv4.map((v4) => `[::${hex(v4)}]`),
      ipv4.map((v4) => `[0:0:0:0:0:0:${v4.join(".")}]`),
      fc.constantFrom(
        "[::]",
        "[::1]",
        "[0:0:0:0:0:0:0:1]",
        "[0000::0001]",
        "[fe80::1]",
        "[FE80::abcd:1]",
        "[fc00::1]",
        "[fd12:3456::1]",
        "[ff02::1]",
      ),
    );
    await fc.assert(
      fc.asyncProperty(formArb, fc.constantFrom("http", "https"), async (host, scheme) => {
        await expectAddAndMoveRefused(`${scheme}://${host}:8443/plant/webhook`, "non-public address");
      }),
      { numRuns: Math.min(RUNS, 100) },
    );
    expect(await snapshot()).toBe(before);
  });

  // Every class of code unit a token could carry that is not visible ASCII.
  const byteClasses: Record<string, fc.Arbitrary<string>> = {
    "C0 control (NUL, TAB, CR, LF...)": fc
      .integer({ min: 0x00, max: 0x1f })
      .map((c) => String.fromCharCode(c)),
    space: fc.constant(" "),
    DEL: fc.constant("\x7f"),
    "C1 control and Latin-1": fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)),
    "other BMP": fc.integer({ min: 0x100, max: 0xd7ff }).map((c) => String.fromCharCode(c)),
    "lone surrogate": fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
    "astral (emoji)": fc.integer({ min: 0x10000, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
  };
  const visibleAscii = fc.string({
    unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
    minLength: 1,
    maxLength: 24,
  });
  const badTokenArb = fc
    .tuple(
      fc.constantFrom(...Object.keys(byteClasses)),
      visibleAscii,
      visibleAscii,
      fc.constantFrom("start", "middle", "end", "alone"),
    )
    .chain(([kind, left, right, where]) =>
      (byteClasses[kind] as fc.Arbitrary<string>).map((bad) => ({
        kind,
        token:
          where === "alone"
            ? bad
            : where === "start"
              ? `${bad}${left}`
              : where === "end"
                ? `${left}${bad}`
                : `${left}${bad}${right}`,
      })),
    );

  it("refuses endpoint tokens from every byte class outside visible ASCII with 400 on POST and PATCH, never echoing them", async () => {
    const before = await snapshot();
    const refused = async ({ kind, token }: { kind: string; token: string }) => {
      for (const [method, path, body] of [
        ["POST", "/endpoints", { url: "https://93.184.216.34/plant/webhook", token }],
        ["PATCH", "/endpoints/1", { token }],
      ] as const) {
        const { status, text } = await send(method, path, "application/json", JSON.stringify(body));
        expect(status, `${method} ${kind} ${JSON.stringify(token)}`).toBe(400);
        expectErrorBody(400, text);
        expect(text).toContain("token: must be visible ASCII");
        if (token.length > 4) expect(JSON.parse(text).message).not.toContain(token);
      }
    };
    // Every class at least once, whatever the random run draws; then random mixes.
    for (const [kind, arb] of Object.entries(byteClasses))
      for (const bad of fc.sample(arb, 3)) await refused({ kind, token: `tok${bad}en` });
    await fc.assert(fc.asyncProperty(badTokenArb, refused), { numRuns: Math.min(RUNS, 150) });
    expect(await snapshot()).toBe(before);
  });

  it("accepts any visible ASCII token on PATCH, and it is the one delivered", async () => {
    await fc.assert(
      fc.asyncProperty(visibleAscii, async (token) => {
        const { status } = await send("PATCH", "/endpoints/1", "application/json", JSON.stringify({ token }));
        expect(status, token).toBe(200);
        expect((await outbox.getEndpoint(1))?.token).toBe(token);
      }),
      { numRuns: 30 },
    );
    await outbox.updateEndpoint(1, { token: "tok" });
  });

  const idArb = fc.oneof(
    fc.string({ unit: "binary" }),
    fc.integer().map(String),
    fc.constantFrom(
      "0",
      "-1",
      "1.5",
      "1e3",
      "1e400",
      "0x10",
      "99999999999999999999",
      "9223372036854775808",
      " 1",
      "NaN",
      "Infinity",
      "%00",
      "..",
    ),
  );
  const pathArb = fc.oneof(
    fc.constantFrom("/plants", "/endpoints", "/replay", "/deliveries"),
    idArb.map((id) => `/endpoints/${encodeURIComponent(id)}/disable`),
    idArb.map((id) => `/endpoints/${encodeURIComponent(id)}/enable`),
    idArb.map((id) => `/endpoints/${encodeURIComponent(id)}`),
    idArb.map((id) => `/deliveries/${encodeURIComponent(id)}`),
    idArb.map((id) => `/deliveries/${encodeURIComponent(id)}/retry`),
    fc
      .record({ status: fc.string(), endpointId: idArb, limit: idArb })
      .map((query) => `/deliveries?${new URLSearchParams(query).toString()}`),
  );
  const jsonish = fc.oneof(
    fc.jsonValue(),
    fc.record(
      {
        name: fc.oneof(fc.string({ unit: "grapheme" }), fc.jsonValue()),
        tag: fc.oneof(fc.string(), fc.jsonValue()),
      },
      { requiredKeys: [] },
    ),
    fc.record(
      {
        url: fc.oneof(fc.webUrl(), fc.string(), fc.jsonValue()),
        token: fc.oneof(fc.string(), fc.jsonValue()),
        secret: fc.oneof(fc.string(), fc.constant(generateWebhookSecret()), fc.jsonValue()),
        secrets: fc.oneof(fc.array(fc.string()), fc.jsonValue()),
      },
      { requiredKeys: [] },
    ),
    fc.record(
      {
        endpointId: fc.oneof(idArb, fc.jsonValue()),
        since: fc.oneof(
          fc.string(),
          fc.date().map((d) => (Number.isNaN(d.getTime()) ? "x" : d.toISOString())),
        ),
      },
      { requiredKeys: [] },
    ),
  );
  const bodyArb: fc.Arbitrary<string | Uint8Array | undefined> = fc.oneof(
    fc.constant(undefined),
    jsonish.map((value) => JSON.stringify(value) ?? "null"),
    jsonish.map((value) => (JSON.stringify(value) ?? "null").slice(0, -1)),
    fc.string({ unit: "binary" }),
    fc.uint8Array({ maxLength: 512 }),
    fc.constant("x".repeat(70 * 1024)),
    fc.constant(`{"name":"${"🌱".repeat(20_000)}"}`),
  );
  const contentTypeArb = fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(
      "application/json",
      "application/json; charset=utf-8",
      "APPLICATION/JSON",
      "application/json-seq",
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
    ),
    fc.string({ unit: "grapheme-ascii" }).filter((value) => !/[\r\n]/.test(value)),
  );

  it("answers random methods, paths, ids, content types and bodies with never a 5xx, always {error, message}, and writes nothing when it refuses", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"),
        pathArb,
        contentTypeArb,
        bodyArb,
        async (method, path, contentType, body) => {
          const before = await snapshot();
          let answer: { status: number; text: string };
          try {
            answer = await send(method, path, contentType, body);
          } catch (error) {
            // fetch itself refuses some header values; the server never saw those.
            if (error instanceof TypeError) return;
            throw error;
          }
          const { status, text } = answer;
          expect(status, `${method} ${path} ${contentType}`).toBeLessThan(500);
          if (status >= 400 && method !== "HEAD") expectErrorBody(status, text);
          if (status >= 400) expect(await snapshot()).toBe(before);
        },
      ),
      { numRuns: RUNS },
    );
  }, 120_000);
});
