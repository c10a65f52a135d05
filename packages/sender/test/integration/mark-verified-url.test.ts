import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Outbox } from "../../src/outbox.js";
import { createPostgresOutbox } from "../../src/postgres.js";
import { createSqliteOutbox } from "../../src/sqlite.js";

// The handshake takes up to 10 s; the endpoint's URL may change meanwhile. Marked with the URL the
// handshake went to, an endpoint is verified only while its URL is still that one: the old URL's
// answer never verifies the new URL.

let postgres: TestPostgres;
const dir = mkdtempSync(join(tmpdir(), "sender-mark-verified-"));
beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);
afterAll(async () => {
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ["SQLite", async () => createSqliteOutbox(join(dir, `${crypto.randomUUID()}.db`))],
  ["PostgreSQL", async () => createPostgresOutbox(await postgres.createDatabase())],
] as const)("markEndpointVerified with the verified URL, on %s", (_name, open) => {
  let outbox: Outbox;
  beforeAll(async () => {
    outbox = await open();
  });
  afterAll(async () => {
    await outbox?.close();
  });

  const subscriberEndpoint = async (url: string) => {
    const { id: subscriberId } = (await outbox.addSubscriber({ name: "Acme" })).subscriber;
    const endpoint = await outbox.addEndpoint({
      url,
      token: "acme-t0ken",
      secrets: [generateWebhookSecret()],
      subscriberId,
    });
    return { endpoint, scope: { subscriberId } };
  };

  it("marks an endpoint still at the URL the handshake went to", async () => {
    const { endpoint, scope } = await subscriberEndpoint("https://acme.example/plant/webhook");
    const marked = await outbox.markEndpointVerified(endpoint.id, scope, endpoint.url);
    expect(marked).toMatchObject({ id: endpoint.id, verified: true, url: endpoint.url });
    expect(marked?.verifiedAt).toBeInstanceOf(Date);
  });

  it("leaves unverified an endpoint whose URL changed while the handshake ran, and answers undefined", async () => {
    const { endpoint, scope } = await subscriberEndpoint("https://acme.example/old");
    await outbox.updateEndpoint(endpoint.id, { url: "https://victim.example/new" }, scope);
    expect(await outbox.markEndpointVerified(endpoint.id, scope, endpoint.url)).toBeUndefined();
    expect(await outbox.getEndpoint(endpoint.id, scope)).toMatchObject({
      url: "https://victim.example/new",
      verified: false,
      verifiedAt: null,
    });
  });

  it("still marks by id alone when no URL is given (as before)", async () => {
    const { endpoint, scope } = await subscriberEndpoint("https://acme.example/any");
    expect(await outbox.markEndpointVerified(endpoint.id, scope)).toMatchObject({ verified: true });
  });
});
