import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startPostgres, type TestPostgres } from "@plant-store/testing";
import { createWebhookSigner } from "@plant-store/types";
import Database from "better-sqlite3";
import pg from "pg";
import type { BenchResult } from "../bench-result.js";
import { median } from "../median.js";
import { ratioRow } from "../ratio-row.js";
import type { Scenario } from "../scenario.js";
import { loadSenderApi, type SenderApi } from "../sender-api.js";
import { loadStoreApi, type StoreApi } from "../store-api.js";
import { skippedRows } from "./skipped-rows.js";

const NAME = "store.events";
const EVENTS = 10_000;
const PAGE = 100;
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const ENDPOINT_TOKEN = "bench-token";
const ADMIN_TOKEN = "bench-admin-token-0123456789abcdef";
const DATABASES = ["sqlite", "postgres"] as const;
type Db = (typeof DATABASES)[number];

interface EventsOutbox {
  addEndpoint(input: { url: string; token: string; secrets: string[] }): Promise<{ id: number }>;
  enqueueMany(messages: ReadonlyArray<{ payload: unknown; eventType?: string }>): Promise<unknown[]>;
  listEvents?(
    endpointId: number,
    options: { after?: string; limit: number },
  ): Promise<{ events: unknown[]; next: string | null } | undefined>;
  close(): Promise<void>;
}

/**
 * The direct read the listing is compared with: the same rows (the columns a listing reads: message id,
 * webhook id, type, body, time), in the same order, page by page as a keyset query reads them (`message_id
 * > the last one`, `LIMIT 100`), one prepared statement. No signing, no endpoint, no cursor checks: what
 * the database costs, and the least any listing must pay. On PostgreSQL the messages are bounded by the
 * last id as well (`m.id > the last one`), as a team that looked at the plan would write it: it carries no
 * range across a join, and once the tables have statistics it merge-joins each page with every message
 * from the first one on (four times the server's CPU for 10,000 rows). SQLite's plan needs no bound.
 */
const PAGE_SQL = {
  sqlite: `SELECT d.message_id, m.webhook_id, m.event_type, m.payload, m.created_at
           FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
           WHERE d.endpoint_id = ? AND d.message_id > ? ORDER BY d.message_id LIMIT ?`,
  postgres: `SELECT d.message_id, m.webhook_id, m.event_type, m.payload, m.created_at
             FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
             WHERE d.endpoint_id = $1 AND d.message_id > $2 AND m.id > $2 ORDER BY d.message_id LIMIT $3`,
};

/** What `listEvents` does for a page, for the row's notes. */
const LISTING: Record<Db, string> = {
  sqlite:
    "two statements a page (the endpoint's keys by id, then the page from the cursor's own row on, one more than asked), keys opened once a page and their signer kept across pages, per event one HMAC-SHA256 (two one-shot digests over padded keys prepared once), its headers and the stored body as is",
  postgres:
    "one statement a page (the page from the cursor's own row on, then the endpoint's keys as its last row in the events' columns, merged by message id), keys opened once a page and their signer kept across pages, per event one HMAC-SHA256 (two one-shot digests over padded keys prepared once), its headers and the stored body as is",
};

interface PageRow {
  message_id: number | string;
  webhook_id: string;
  payload: string;
}
type ReadPage = (endpointId: number, after: number) => Promise<PageRow[]>;

async function openDirectReader(
  db: Db,
  location: string,
): Promise<{ readPage: ReadPage; close(): Promise<void> }> {
  if (db === "sqlite") {
    const file = new Database(location, { readonly: true });
    const statement = file.prepare<[number, number, number], PageRow>(PAGE_SQL.sqlite);
    return {
      readPage: async (endpointId, after) => statement.all(endpointId, after, PAGE),
      close: async () => void file.close(),
    };
  }
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  return {
    // A named statement: parsed and planned once on this connection, as the outbox's reads are.
    readPage: async (endpointId, after) =>
      (
        await client.query<PageRow>({
          name: "events-page",
          text: PAGE_SQL.postgres,
          values: [endpointId, after, PAGE],
        })
      ).rows,
    close: () => client.end(),
  };
}

/**
 * Issue 40: catching up on 10,000 retained events of one endpoint (of two, each receiving every message)
 * page by page through `Outbox.listEvents` (each event signed with the endpoint's keys), beside reading
 * the same rows page by page straight from the database (`PAGE_SQL`), on SQLite and on PostgreSQL. The
 * two are interleaved run by run; the goal is a ratio of at most 2.
 */
export const storeEvents: Scenario = {
  name: NAME,
  description: `An endpoint's ${EVENTS} retained events listed page by page (${PAGE} a page, each signed), beside reading the same rows page by page from the database directly (SQLite, PostgreSQL)`,
  async run(context) {
    const rowNames = (db: Db) => [
      `${NAME}.${db}.direct-read`,
      `${NAME}.${db}.sign-only`,
      `${NAME}.${db}.list-pages`,
    ];
    let sender: SenderApi;
    try {
      sender = await loadSenderApi();
    } catch (error) {
      return skippedRows(DATABASES.flatMap(rowNames), (error as Error).message);
    }
    // The store app's admin API, for the listing as a pulling receiver makes it (over HTTP); optional.
    const storeApi = await loadStoreApi().catch(() => undefined);
    const results: BenchResult[] = [];
    let postgres: TestPostgres | undefined;
    try {
      for (const db of DATABASES) {
        let location: string;
        let outbox: EventsOutbox;
        if (db === "sqlite") {
          location = join(context.tempDir(), "events.db");
          outbox = sender.createSqliteOutbox(location) as unknown as EventsOutbox;
        } else {
          try {
            postgres = await startPostgres();
          } catch (error) {
            results.push(...skippedRows(rowNames(db), `no PostgreSQL: ${(error as Error).message}`));
            continue;
          }
          location = await postgres.createDatabase("events");
          outbox = (await sender.createPostgresOutbox(location)) as unknown as EventsOutbox;
        }
        try {
          results.push(...(await measure(context, db, outbox, location, storeApi)));
        } finally {
          await outbox.close();
        }
      }
    } finally {
      await postgres?.stop();
    }
    return results;
  },
};

async function measure(
  context: Parameters<Scenario["run"]>[0],
  db: Db,
  outbox: EventsOutbox,
  location: string,
  storeApi: StoreApi | undefined,
): Promise<BenchResult[]> {
  const prefix = `${NAME}.${db}`;
  const listEvents = outbox.listEvents?.bind(outbox);
  if (listEvents === undefined)
    return skippedRows(
      [`${prefix}.direct-read`, `${prefix}.list-pages`],
      "@plant-store/sender has no Outbox.listEvents",
    );
  const { id } = await outbox.addEndpoint({
    url: "http://127.0.0.1:9/a",
    token: ENDPOINT_TOKEN,
    secrets: [SECRET],
  });
  await outbox.addEndpoint({ url: "http://127.0.0.1:9/b", token: ENDPOINT_TOKEN, secrets: [SECRET] });
  for (let from = 0; from < EVENTS; from += 500)
    await outbox.enqueueMany(
      Array.from({ length: 500 }, (_, index) => ({
        eventType: "newPlant",
        payload: { id: from + index, name: `Plant ${from + index}` },
      })),
    );
  // As a live store's tables are (autovacuum analyses them): without statistics, PostgreSQL plans the
  // first executions of each statement as if the endpoint had a few rows (reading and sorting all of
  // them a page), and the listing's first page, a statement of its own, kept such plans four rounds on.
  if (db === "postgres") {
    const client = new pg.Client({ connectionString: location });
    await client.connect();
    await client.query("ANALYZE").finally(() => client.end());
  }
  const reader = await openDirectReader(db, location);
  const kept: PageRow[] = [];
  const readAll = async (keep = false) => {
    let after = 0;
    let read = 0;
    for (;;) {
      const page = await reader.readPage(id, after);
      if (page.length === 0) break;
      if (keep) kept.push(...page);
      read += page.length;
      after = Number(page[page.length - 1]?.message_id);
    }
    if (read !== EVENTS) throw new Error(`${db}: read ${read} rows, not ${EVENTS}`);
  };
  const listAll = async () => {
    let after: string | undefined;
    let listed = 0;
    for (;;) {
      const page = await listEvents(id, { limit: PAGE, ...(after === undefined ? {} : { after }) });
      if (!page || page.events.length === 0 || page.next === null) break;
      listed += page.events.length;
      after = page.next;
    }
    if (listed !== EVENTS) throw new Error(`${db}: listed ${listed} events, not ${EVENTS}`);
  };
  // As a pulling receiver lists them: `GET /endpoints/{id}/events` with the endpoint's own token, the store
  // app's admin API (its own store on the same database) served in this process, `fetch` as the client.
  const http = storeApi === undefined ? undefined : await startAdminApi(storeApi, location);
  const httpListAll = async () => {
    let after: string | undefined;
    let listed = 0;
    for (;;) {
      const query = `limit=${PAGE}${after === undefined ? "" : `&after=${after}`}`;
      const response = await fetch(`${http?.url}/endpoints/${id}/events?${query}`, {
        headers: { authorization: `Bearer ${ENDPOINT_TOKEN}` },
      });
      if (response.status !== 200) throw new Error(`${db}: the events route answered ${response.status}`);
      const page = (await response.json()) as { events: unknown[]; next: string | null };
      if (page.events.length === 0 || page.next === null) break;
      listed += page.events.length;
      after = page.next;
    }
    if (listed !== EVENTS) throw new Error(`${db}: listed ${listed} events over HTTP, not ${EVENTS}`);
  };
  // Many short rounds, the two interleaved in each, so a burst of load from elsewhere on the machine lands
  // on one figure of one round and the median leaves it out. CPU time of this process beside the wall
  // time: on SQLite it is the whole cost (the database runs in this process) and steadier under load.
  const rounds = context.runs * 5;
  // The HMAC alone, the one piece of work per event no listing can leave out: the floor above the read.
  const signer = createWebhookSigner([SECRET]);
  const signAll = async () => {
    const timestamp = Math.floor(Date.now() / 1000);
    for (const event of kept) signer({ id: event.webhook_id, timestamp, body: event.payload });
  };
  const timings = {
    direct: [] as number[],
    pages: [] as number[],
    sign: [] as number[],
    directCpu: [] as number[],
    pagesCpu: [] as number[],
    signCpu: [] as number[],
    http: [] as number[],
    httpCpu: [] as number[],
  };
  const timed = async (work: () => Promise<void>, wall: number[], cpu: number[]) => {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await work();
    wall.push(performance.now() - started);
    const used = process.cpuUsage(cpuBefore);
    cpu.push((used.user + used.system) / 1000);
  };
  try {
    // One warm-up of each, then the measured rounds.
    await readAll(true);
    await listAll();
    await signAll();
    if (http) await httpListAll();
    for (let round = 0; round < rounds; round++) {
      await timed(readAll, timings.direct, timings.directCpu);
      await timed(listAll, timings.pages, timings.pagesCpu);
      await timed(signAll, timings.sign, timings.signCpu);
      if (http) await timed(httpListAll, timings.http, timings.httpCpu);
    }
  } finally {
    await reader.close();
    await http?.close();
  }
  const direct = median(timings.direct);
  const pages = median(timings.pages);
  const sign = median(timings.sign);
  const perRound = median(timings.pages.map((value, round) => value / (timings.direct[round] ?? Number.NaN)));
  const cpuRatio = median(timings.pagesCpu) / median(timings.directCpu);
  const cpuNote = `CPU of this process ${median(timings.directCpu).toFixed(1)} / ${median(timings.pagesCpu).toFixed(1)} ms, ${cpuRatio.toFixed(2)}${db === "postgres" ? " (the server's not counted)" : ""}`;
  context.log(
    `${prefix}: direct ${direct.toFixed(1)} ms, ${EVENTS / PAGE} pages listed ${pages.toFixed(1)} ms, ${(pages / direct).toFixed(2)}; median of each round's ratio ${perRound.toFixed(2)}; ${cpuNote}`,
  );
  return [
    ratioRow(
      `${prefix}.direct-read`,
      direct,
      "ms",
      undefined,
      `${EVENTS} rows of one endpoint, ${PAGE} a page by keyset (message_id > last, LIMIT ${PAGE}), one prepared statement`,
    ),
    ratioRow(
      `${prefix}.sign-only`,
      sign,
      "ms",
      { name: `${prefix}.direct-read`, value: direct },
      `the HMAC-SHA256 of the same ${EVENTS} events alone (the signing core, keys read once): what a listing adds at the least; CPU ${median(timings.signCpu).toFixed(1)} ms`,
    ),
    ratioRow(
      `${prefix}.list-pages`,
      pages,
      "ms",
      { name: `${prefix}.direct-read`, value: direct },
      `the same events through listEvents, ${PAGE} a page, each signed: ${LISTING[db]}; medians of ${rounds} rounds; each round's own ratio, median ${perRound.toFixed(2)}; ${cpuNote} (issue 40 asks for ≤ 2)`,
    ),
    ...(http
      ? [
          ratioRow(
            `${prefix}.http-pages`,
            median(timings.http),
            "ms",
            { name: `${prefix}.direct-read`, value: direct },
            `the same events as a pulling receiver gets them: GET /endpoints/{id}/events with the endpoint's token (checked by the listing as it reads the endpoint, once a page), ${PAGE} a page, the store's admin app in this process and fetch as the client (both sides' cost); CPU ${median(timings.httpCpu).toFixed(1)} ms`,
          ),
        ]
      : []),
  ];
}

/** The store app's admin API on its own store over the same database, on loopback port 0. */
async function startAdminApi(
  storeApi: StoreApi,
  location: string,
): Promise<{ url: string; close(): Promise<void> }> {
  const store = await storeApi.openStore(location);
  const { registry } = storeApi.createMetrics();
  const app = storeApi.createAdminApp({
    outbox: store.outbox,
    plants: store.plants,
    adminToken: ADMIN_TOKEN,
    registry,
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
    },
  };
}
