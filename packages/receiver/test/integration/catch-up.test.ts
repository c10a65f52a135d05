import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRetryPolicy, type Outbox } from "@plant-store/sender";
import { createSqliteOutbox } from "@plant-store/sender/sqlite";
import { startPostgres, type TestPostgres, waitFor } from "@plant-store/testing";
import { generateWebhookSecret, NEW_PLANT_EVENT, PLANT_STORE_WEBHOOKS } from "@plant-store/types";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type CatchUpEvent,
  CatchUpHandlerError,
  CatchUpRequestError,
  type CursorStore,
  createCatchUp,
  createMemoryCursorStore,
  createNodeMiddleware,
  createWebhookReceiver,
  type DedupStore,
  InvalidReceiverOptionsError,
  type WebhookReceiver,
} from "../../src/index.js";
import { createPostgresCursorStore, createPostgresDedupStore } from "../../src/postgres.js";
import { createSqliteCursorStore, createSqliteDedupStore } from "../../src/sqlite.js";
import { type EventsApi, startEventsApi } from "../fixtures/events-api.js";
import { send } from "../fixtures/start-receiver.js";

const dir = mkdtempSync(join(tmpdir(), "receiver-catch-up-"));
let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startPostgres();
}, 120_000);

afterAll(async () => {
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A cursor store and a de-duplication store on the same database, made again as a restarted process would. */
interface Stores {
  cursors: CursorStore;
  dedup: DedupStore;
}

const databases: ReadonlyArray<readonly [string, () => Promise<() => Stores>]> = [
  [
    "SQLite",
    async () => {
      const file = join(dir, `receiver-${crypto.randomUUID()}.db`);
      return () => ({
        cursors: createSqliteCursorStore({ database: file }),
        dedup: createSqliteDedupStore({ database: file }),
      });
    },
  ],
  [
    "PostgreSQL",
    async () => {
      const url = await postgres.createDatabase();
      return () => ({
        cursors: createPostgresCursorStore({ pool: url }),
        dedup: createPostgresDedupStore({ pool: url }),
      });
    },
  ],
];

describe.each(databases)("createCatchUp against the store's events API, cursor in %s", (_name, open) => {
  const secret = generateWebhookSecret();
  const endpointToken = "endpoint-token-0123456789";
  let outbox: Outbox;
  let api: EventsApi;
  let endpointId: number;
  let makeStores: () => Stores;
  const opened: Stores[] = [];
  /** Handler calls per webhook id, across every receiver of the test. */
  let handled: Map<string, number>;

  beforeEach(async () => {
    outbox = createSqliteOutbox(join(dir, `store-${crypto.randomUUID()}.db`));
    endpointId = (
      await outbox.addEndpoint({
        url: "https://receiver.example/plant/webhook",
        token: endpointToken,
        secrets: [secret],
      })
    ).id;
    api = await startEventsApi(outbox, endpointToken);
    makeStores = await open();
    handled = new Map();
  });

  afterEach(async () => {
    for (const stores of opened.splice(0)) {
      await stores.cursors.close();
      await stores.dedup.close();
    }
    await api.close();
    await outbox.close();
  });

  const stores = () => {
    const made = makeStores();
    opened.push(made);
    return made;
  };
  const receiverOn = (dedupStore: DedupStore, fail?: (id: number) => boolean): WebhookReceiver =>
    createWebhookReceiver({
      catalog: PLANT_STORE_WEBHOOKS,
      tokens: [endpointToken],
      secrets: [secret],
      dedupStore,
      handlers: {
        newPlant: (plant, { webhookId }) => {
          if (fail?.(plant.id)) throw new Error("handler failed");
          handled.set(webhookId, (handled.get(webhookId) ?? 0) + 1);
        },
      },
    });
  const addPlants = async (from: number, to: number) => {
    const ids: string[] = [];
    for (let id = from; id <= to; id++)
      ids.push(
        (await outbox.enqueue({ eventType: NEW_PLANT_EVENT, payload: { id, name: `Plant ${id}` } }))
          .webhookId,
      );
    return ids;
  };
  const catchUp = (
    made: Stores,
    receiver: WebhookReceiver,
    more: { onEvent?: (event: CatchUpEvent) => void } = {},
  ) =>
    createCatchUp({
      url: api.url(endpointId),
      token: endpointToken,
      receiver,
      cursorStore: made.cursors,
      pageSize: 3,
      ...more,
    });

  it("handles every retained event once, keeps its cursor across a restart, and asks only for what is new", async () => {
    const first = await addPlants(1, 7);
    const before = stores();
    const result = await catchUp(before, receiverOn(before.dedup)).run();
    expect(result).toMatchObject({ pages: 3, received: 7, duplicates: 0, refused: 0, expired: false });
    expect([...handled.keys()]).toEqual(first);
    expect([...handled.values()].every((calls) => calls === 1)).toBe(true);

    // A restart: new stores on the same database, a new catch-up.
    const more = await addPlants(8, 9);
    const after = stores();
    const again = await catchUp(after, receiverOn(after.dedup)).run();
    expect(again).toMatchObject({ pages: 1, received: 2, duplicates: 0 });
    expect([...handled.keys()]).toEqual([...first, ...more]);
    expect(await catchUp(after, receiverOn(after.dedup)).run()).toMatchObject({ pages: 0, received: 0 });
  });

  it("handles a pushed and a pulled copy of the same event once, whichever comes first", async () => {
    const made = stores();
    const receiver = receiverOn(made.dedup);
    const server: Server = createServer(createNodeMiddleware(receiver));
    server.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const push = async (webhookId: string) => {
      const message = (await outbox.listDeliveries({ limit: 100 })).find((d) => d.webhookId === webhookId);
      const body = (await outbox.getMessage(message?.messageId ?? 0))?.payload ?? "";
      const answer = await send(`http://127.0.0.1:${(server.address() as AddressInfo).port}/plant/webhook`, {
        token: endpointToken,
        secret,
        id: webhookId,
        body,
      });
      return (await answer.json()) as { duplicate: boolean };
    };
    try {
      const [pushedFirst, pulledFirst] = await addPlants(1, 2);
      expect(await push(pushedFirst as string)).toEqual({ received: true, duplicate: false });
      const events: CatchUpEvent[] = [];
      await catchUp(made, receiver, { onEvent: (event) => events.push(event) }).run();
      expect(events).toEqual([
        { webhookId: pushedFirst, outcome: "duplicate" },
        { webhookId: pulledFirst, outcome: "received" },
      ]);
      expect(await push(pulledFirst as string)).toEqual({ received: true, duplicate: true });
      expect([...handled.values()]).toEqual([1, 1]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("skips an event altered in transit, reports it and never handles it, and goes on past it", async () => {
    const [one, altered, three] = await addPlants(1, 3);
    api.tamper(altered as string);
    const made = stores();
    const events: CatchUpEvent[] = [];
    const run = catchUp(made, receiverOn(made.dedup), { onEvent: (event) => events.push(event) });
    expect(await run.run()).toMatchObject({ received: 2, refused: 1 });
    expect(events).toEqual([
      { webhookId: one, outcome: "received" },
      { webhookId: altered, outcome: "refused", code: "ERR_INVALID_SIGNATURE" },
      { webhookId: three, outcome: "received" },
    ]);
    expect(handled.has(altered as string)).toBe(false);
    expect(run.state()).toMatchObject({ received: 2, refused: 1 });
    // Skipped for good: the cursor went past it.
    expect(await run.run()).toMatchObject({ pages: 0 });
  });

  it("stops before an event whose handler fails, and takes it again next run (what came before it is a duplicate)", async () => {
    const ids = await addPlants(1, 3);
    const made = stores();
    let failing = true;
    const run = catchUp(
      made,
      receiverOn(made.dedup, (id) => failing && id === 2),
    );
    const refused = await run.run().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CatchUpHandlerError);
    expect(run.state()).toMatchObject({ failures: 1, cursor: null });
    failing = false;
    expect(await run.run()).toMatchObject({ received: 2, duplicates: 1 });
    expect([...handled.keys()]).toEqual(ids);
  });

  it("says so when its cursor outlived the store's retention, and goes on from the oldest cursor served", async () => {
    await addPlants(1, 3);
    const made = stores();
    const run = catchUp(made, receiverOn(made.dedup));
    await run.run();
    // A cursor from before the first page end: its events are delivered, then swept by retention.
    await made.cursors.set(api.url(endpointId), String(Number(run.state().cursor) - 2));
    const policy = createRetryPolicy();
    for (const claimed of await outbox.claimDue({ workerId: "w", limit: 100, leaseMs: 60_000 }))
      await outbox.recordAttempts(
        [
          {
            deliveryId: claimed.id,
            workerId: "w",
            result: { startedAt: new Date(), durationMs: 1, status: 200, error: null, responseBody: "" },
          },
        ],
        { policy },
      );
    const kept = await addPlants(4, 5);
    // A cutoff a minute ahead: every finished delivery is old enough.
    while ((await outbox.sweep({ olderThanMs: -60_000 })).deliveries > 0);

    const result = await run.run();
    expect(result).toMatchObject({ expired: true, received: 2 });
    expect(run.state().expired).toMatchObject({ oldestCursor: expect.any(String) });
    expect([...handled.keys()].slice(-2)).toEqual(kept);
  });

  it("runs on an interval, backs off while the store fails, and stops cleanly", async () => {
    const made = stores();
    const run = createCatchUp({
      url: api.url(endpointId),
      token: endpointToken,
      receiver: receiverOn(made.dedup),
      cursorStore: made.cursors,
      intervalMs: 20,
    });
    run.start();
    const ids = await addPlants(1, 2);
    await waitFor(() => (handled.size === 2 ? true : undefined));
    expect([...handled.keys()]).toEqual(ids);

    api.fail(503);
    await waitFor(() => (run.state().failures >= 2 ? true : undefined));
    const state = run.state();
    expect(state.status).toBe("backing-off");
    expect(state.lastError).toMatch(/503/);
    await expect(run.run()).rejects.toBeInstanceOf(CatchUpRequestError);

    // The store answers again: the next run after the backoff takes what was added meanwhile.
    await addPlants(3, 3);
    api.fail(undefined);
    await waitFor(() => (handled.size === 3 && run.state().failures === 0 ? true : undefined));
    await run.stop();
    expect(run.state()).toMatchObject({ status: "stopped", nextRunAt: null });
    const requests = api.requests;
    await addPlants(4, 4);
    // Stopped: a run asked for now does nothing, and no timer is left to start one.
    expect(await run.run()).toMatchObject({ pages: 0 });
    expect(api.requests).toBe(requests);
  });

  it("refuses options it cannot run with, naming each", () => {
    const receiver = receiverOn(createSqliteDedupStore({ database: ":memory:" }));
    expect(() =>
      createCatchUp({ url: "ftp://x/", token: "", receiver, intervalMs: 0, pageSize: 5000 }),
    ).toThrow(InvalidReceiverOptionsError);
    expect(() => createCatchUp({ url: "not a url", token: "t", receiver })).toThrow(
      /url: must be an absolute URL/,
    );
    expect(() =>
      createCatchUp({
        url: "http://127.0.0.1/e",
        token: "t",
        receiver,
        cursorStore: createMemoryCursorStore(),
      }),
    ).not.toThrow();
  });
});
