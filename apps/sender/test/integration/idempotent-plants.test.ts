import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { generateWebhookSecret } from "@plant-store/types";
import pg from "pg";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdminApp } from "../../src/create-admin-app.js";
import { openStore, type Store } from "../../src/open-store.js";

const adminToken = "admin-token-0123456789";
let postgres: TestPostgres;
const dir = mkdtempSync(join(tmpdir(), "plant-store-idempotent-"));

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ["SQLite", async () => join(dir, `store-${Math.random()}.db`)],
  ["PostgreSQL", async () => postgres.createDatabase()],
])("POST /plants with an Idempotency-Key on %s", (_name, database) => {
  let store: Store;
  let server: Server;
  let base: string;
  let url: string;

  beforeAll(async () => {
    url = await database();
    store = await openStore(url);
    for (const path of ["/a", "/b"])
      await store.outbox.addEndpoint({
        url: `http://127.0.0.1:9${path}`,
        token: "tok",
        secrets: [generateWebhookSecret()],
      });
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
  });

  async function addPlant(body: unknown, key?: string, orderingKey?: string) {
    const response = await fetch(`${base}/plants`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${adminToken}`,
        "content-type": "application/json",
        ...(key === undefined ? {} : { "idempotency-key": key }),
        ...(orderingKey === undefined ? {} : { "ordering-key": orderingKey }),
      },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      // The header the API documents (admin-openapi.json); it used to be sent as `idempotent-replayed`.
      replayed: response.headers.get("idempotency-replayed"),
      body: (await response.json()) as { plant: { id: number; webhookId: string }; queued: number },
    };
  }

  it("creates one plant and one delivery per endpoint when the same request is sent 10 times at once", async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => addPlant({ name: "Monstera", tag: "tropical" }, "order-10")),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(201));
    // The same answer every time: the same plant, and the deliveries queued by the first.
    expect(new Set(answers.map((answer) => JSON.stringify(answer.body)))).toEqual(
      new Set([JSON.stringify(answers[0]?.body)]),
    );
    expect(answers[0]?.body.queued).toBe(2);
    expect(answers.filter((answer) => answer.replayed === null)).toHaveLength(1);
    expect(answers.filter((answer) => answer.replayed === "true")).toHaveLength(9);
    const webhookId = answers[0]?.body.plant.webhookId;
    const deliveries = await store.outbox.listDeliveries({ limit: 1000 });
    expect(deliveries.filter((delivery) => delivery.webhookId === webhookId)).toHaveLength(2);
    expect((await store.plants.list(1000)).filter((plant) => plant.name === "Monstera")).toHaveLength(1);
  });

  it("queues plants with an Ordering-Key: the key is on their deliveries and part of what the idempotency key compares", async () => {
    const first = await addPlant({ name: "Ordered fern" }, "ordered-1", "greenhouse-1");
    expect(first.status).toBe(201);
    const keys = (await store.outbox.listDeliveries({ limit: 1000 }))
      .filter((delivery) => delivery.webhookId === first.body.plant.webhookId)
      .map((delivery) => delivery.orderingKey);
    expect(keys).toEqual(["greenhouse-1", "greenhouse-1"]);
    expect((await addPlant({ name: "Ordered fern" }, "ordered-1", "greenhouse-1")).replayed).toBe("true");
    expect((await addPlant({ name: "Ordered fern" }, "ordered-1", "greenhouse-2")).status).toBe(409);
    expect((await addPlant({ name: "Ordered fern" }, "ordered-1")).status).toBe(409);
    const refused = await addPlant({ name: "Unordered" }, undefined, "has space");
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("Invalid Ordering-Key header");
  });

  it("answers 409 with the Error body for the same key with another body, and adds nothing", async () => {
    const first = await addPlant({ name: "Ficus" }, "order-409");
    expect(first.status).toBe(201);
    const before = (await store.outbox.listDeliveries({ limit: 1000 })).length;
    const conflict = await addPlant({ name: "Ficus", tag: "changed" }, "order-409");
    expect(conflict.status).toBe(409);
    expect(conflict.body).toEqual({
      error: 409,
      message: "This Idempotency-Key was already used with a different plant",
    });
    expect((await store.outbox.listDeliveries({ limit: 1000 })).length).toBe(before);
  });

  it("adds a plant each time without a key, and refuses a key a header cannot carry", async () => {
    const one = await addPlant({ name: "Twice" });
    const two = await addPlant({ name: "Twice" });
    expect(two.body.plant.id).not.toBe(one.body.plant.id);
    const bad = await addPlant({ name: "Bad key" }, "k".repeat(256));
    expect(bad.status).toBe(400);
    // A header's problem is named as the header's, never as the body's.
    expect(bad.body).toEqual({
      error: 400,
      message: "Invalid Idempotency-Key header: Too big: expected string to have <=255 characters",
    });
  });

  it("refuses an Idempotency-Key of spaces only (sent, so not the same as no key) with a 400, and adds nothing", async () => {
    const before = (await store.plants.list(1000)).length;
    for (const key of ["   ", "\t"]) {
      const refused = await addPlant({ name: "Blank key" }, key);
      expect(refused.status, JSON.stringify(key)).toBe(400);
      expect(refused.body).toEqual({
        error: 400,
        message:
          "Invalid Idempotency-Key header: must not be empty or only spaces; send no header for no key",
      });
    }
    expect((await store.plants.list(1000)).length).toBe(before);
  });
  it("adds plants that arrive together in one transaction (group commit), a refused one leaving the others in", async () => {
    const names = Array.from({ length: 10 }, (_, index) => `Grouped ${_name} ${index}`);
    const outcomes = await Promise.allSettled([
      ...names.map((name) => store.plants.add({ name })),
      store.plants.add({ name: "Keyed" }, `group-${_name}`),
      store.plants.add({ name: "Keyed, other body" }, `group-${_name}`),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([...Array(11).fill("fulfilled"), "rejected"]);
    expect((outcomes[11] as PromiseRejectedResult).reason).toMatchObject({
      code: "ERR_IDEMPOTENCY_CONFLICT",
    });
    const listed = (await store.plants.list(1000)).map((plant) => plant.name);
    for (const name of [...names, "Keyed"]) expect(listed).toContain(name);
    expect(listed).not.toContain("Keyed, other body");
    // Each plant's New Plant payload carries its own id (drawn for the whole group at once on PostgreSQL).
    const deliveries = await store.outbox.listDeliveries({ limit: 1000 });
    for (const plant of (await store.plants.list(1000)).filter((p) => p.name.startsWith("Grouped"))) {
      const delivery = deliveries.find((d) => d.webhookId === plant.webhookId);
      const message = await store.outbox.getMessage(delivery?.messageId ?? -1);
      expect(JSON.parse(message?.payload ?? "null")).toEqual({ id: plant.id, name: plant.name });
    }
    if (_name === "PostgreSQL") {
      // Rows written by one transaction carry its id: one group, one commit.
      const pool = new pg.Pool({ connectionString: url });
      try {
        const { rows } = await pool.query<{ transactions: number }>(
          "SELECT count(DISTINCT xmin::text)::int AS transactions FROM store_plants WHERE name LIKE 'Grouped%' OR name = 'Keyed'",
        );
        expect(rows[0]?.transactions).toBe(1);
      } finally {
        await pool.end();
      }
    }
  });
  it("refuses a plant whose name or tag holds a NUL character with a 400 naming the field, and adds nothing", async () => {
    const before = (await store.plants.list(1000)).length;
    for (const body of [{ name: "Nul\u0000name" }, { name: "Fine", tag: "nul\u0000tag" }]) {
      const refused = await addPlant(body);
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toContain(Object.keys(body).at(-1) as string);
    }
    expect((await store.plants.list(1000)).length).toBe(before);
  });
});
