import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import { callApi, startTestReceiver, type TestReceiver, waitFor } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/open-store.js";
import { cliJson } from "../fixtures/cli-in-process.js";
import { type StoreProcess, startStore } from "../fixtures/store-process.js";

/**
 * Private targets per owner (issue 37): `--allow-private-targets` used to let subscribers reach the
 * store's own network too, and the `listen` exception was granted by URL, so a subscriber's endpoint at
 * the store's own `/relay/{session}` passed it. Now the operator's flag covers the operator's endpoints,
 * subscribers need `--allow-private-targets-for-subscribers`, the relay is let through for the listen
 * session's endpoint id only, and a relay-shaped URL is refused by `POST`/`PATCH /endpoints`.
 */
const adminToken = "admin-token-private-targets-0123";

/** Attempts of every delivery to `endpointId`, from the CLI on the store's database. */
async function attemptsTo(db: string, endpointId: number) {
  const { deliveries } = await cliJson<{ deliveries: Array<{ id: number; endpointId: number }> }>([
    ...["deliveries", "list", "--db", db],
  ]);
  const mine = deliveries.filter((delivery) => delivery.endpointId === endpointId);
  const shown = await Promise.all(
    mine.map((delivery) =>
      cliJson<{ attempts: Array<{ error: string | null; status: number | null }> }>([
        ...["deliveries", "show", String(delivery.id), "--db", db],
      ]),
    ),
  );
  return shown.flatMap((entry) => entry.attempts);
}

/** A subscriber's endpoint written straight to the database and marked verified, as if it had passed. */
async function plantedEndpoint(db: string, subscriberId: number, url: string): Promise<number> {
  const store = await openStore(db);
  try {
    const endpoint = await store.outbox.addEndpoint({
      url,
      token: "planted-token",
      secrets: [generateWebhookSecret()],
      subscriberId,
    });
    await store.outbox.markEndpointVerified(endpoint.id);
    return endpoint.id;
  } finally {
    await store.close();
  }
}

describe("serve with --allow-private-targets: the operator's endpoints only", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-private-operator-"));
  const db = join(dir, "store.db");
  let store: StoreProcess;
  let receiver: TestReceiver;
  let subscriber: { id: number; token: string };

  beforeAll(async () => {
    receiver = await startTestReceiver();
    store = await startStore(["--db", db, "--allow-private-targets", "--retry-schedule", "0,50ms"], {
      PLANT_STORE_ADMIN_TOKEN: adminToken,
    });
    const added = await callApi(store.url, "POST", "/subscribers", {
      token: adminToken,
      body: { name: "S" },
    });
    subscriber = { id: added.body.subscriber.id, token: added.body.token };
  }, 60_000);

  afterAll(async () => {
    await store?.stop();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("takes the operator's loopback endpoint and refuses a subscriber's, on POST and on PATCH", async () => {
    const url = `${receiver.url}/plant/webhook`;
    const operator = await callApi(store.url, "POST", "/endpoints", {
      token: adminToken,
      body: { url, token: "t" },
    });
    expect(operator.status, operator.text).toBe(201);
    const refused = await callApi(store.url, "POST", "/endpoints", {
      token: subscriber.token,
      body: { url, token: "t" },
    });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.message).toMatch(/^Invalid endpoint: url: .*non-public address/);
    const own = await callApi(store.url, "POST", "/endpoints", {
      token: subscriber.token,
      body: { url: "https://subscriber.invalid/hook", token: "t" },
    });
    expect(own.status).toBe(201);
    const moved = await callApi(store.url, "PATCH", `/endpoints/${own.body.endpoint.id}`, {
      token: subscriber.token,
      body: { url },
    });
    expect(moved.status, moved.text).toBe(400);
    expect(moved.body.message).toMatch(/^Invalid endpoint update: url: .*non-public address/);
  });

  it("does not deliver to a subscriber's private endpoint stored some other way, while the operator's gets the plant", async () => {
    const planted = await plantedEndpoint(db, subscriber.id, `${receiver.url}/planted`);
    const before = receiver.requests.length;
    await callApi(store.url, "POST", "/plants", { token: adminToken, body: { name: "Fern" } });
    const attempts = await waitFor(async () => {
      const found = await attemptsTo(db, planted);
      return found.length > 0 ? found : undefined;
    }, 20_000);
    expect(attempts.every((attempt) => attempt.error === "ERR_SSRF_BLOCKED" && attempt.status === null)).toBe(
      true,
    );
    // The operator's endpoint had it; nothing reached the planted path.
    await waitFor(async () => (receiver.requests.length > before ? true : undefined), 20_000);
    expect(receiver.requests.map((request) => request.path)).not.toContain("/planted");
  }, 40_000);

  it("refuses a relay-shaped URL for a subscriber, and lets no subscriber's endpoint through to a live listen session", async () => {
    const listening = new AbortController();
    const response = await fetch(`${store.url}/listen`, {
      method: "POST",
      signal: listening.signal,
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: "{}",
    });
    const lines = createInterface({ input: Readable.fromWeb(response.body as never) })[
      Symbol.asyncIterator
    ]();
    const first = JSON.parse((await lines.next()).value as string) as {
      session: string;
      endpoint: { url: string };
    };
    const relayUrl = first.endpoint.url;
    expect(relayUrl).toBe(`${store.url}/relay/${first.session}`);
    try {
      for (const url of [
        relayUrl,
        `${store.url}/relay/lst_${"0".repeat(32)}`,
        relayUrl.replace("127.0.0.1", "localhost"),
        `https://store.example/relay/${first.session}`,
        `${store.url}/relay/%6cst_${"0".repeat(32)}`,
      ]) {
        const added = await callApi(store.url, "POST", "/endpoints", {
          token: subscriber.token,
          body: { url, token: "t" },
        });
        expect(added.status, url).toBe(400);
        expect(added.body.message, url).toMatch(/^Invalid endpoint: url: .*relay/);
      }
      const own = await callApi(store.url, "POST", "/endpoints", {
        token: subscriber.token,
        body: { url: "https://subscriber.invalid/other", token: "t" },
      });
      const moved = await callApi(store.url, "PATCH", `/endpoints/${own.body.endpoint.id}`, {
        token: subscriber.token,
        body: { url: relayUrl },
      });
      expect(moved.status).toBe(400);
      expect(moved.body.message).toMatch(/^Invalid endpoint update: url: .*relay/);

      // One written at the session's very URL: the exception is the session's endpoint id, not its URL.
      const planted = await plantedEndpoint(db, subscriber.id, relayUrl);
      await callApi(store.url, "POST", "/plants", { token: adminToken, body: { name: "Ivy" } });
      const attempts = await waitFor(async () => {
        const found = await attemptsTo(db, planted);
        return found.length > 0 ? found : undefined;
      }, 20_000);
      expect(
        attempts.every((attempt) => attempt.error === "ERR_SSRF_BLOCKED" && attempt.status === null),
      ).toBe(true);
    } finally {
      // Ends the session (the store removes its endpoint once the stream closes).
      listening.abort();
    }
  }, 40_000);
});

describe("serve with --allow-private-targets-for-subscribers", () => {
  const dir = mkdtempSync(join(tmpdir(), "plant-store-private-subscribers-"));
  let store: StoreProcess;
  let receiver: TestReceiver;

  beforeAll(async () => {
    receiver = await startTestReceiver();
    store = await startStore(["--db", join(dir, "store.db"), "--allow-private-targets-for-subscribers"], {
      PLANT_STORE_ADMIN_TOKEN: adminToken,
    });
  }, 60_000);

  afterAll(async () => {
    await store?.stop();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("takes a subscriber's loopback endpoint and refuses the operator's: each setting covers its own owners", async () => {
    const url = `${receiver.url}/plant/webhook`;
    const added = await callApi(store.url, "POST", "/subscribers", {
      token: adminToken,
      body: { name: "S" },
    });
    const subscriber = await callApi(store.url, "POST", "/endpoints", {
      token: added.body.token,
      body: { url, token: "t" },
    });
    expect(subscriber.status, subscriber.text).toBe(201);
    const operator = await callApi(store.url, "POST", "/endpoints", {
      token: adminToken,
      body: { url, token: "t" },
    });
    expect(operator.status, operator.text).toBe(400);
    expect(operator.body.message).toMatch(/^Invalid endpoint: url: .*non-public address/);
  });
});
