import { join } from "node:path";
import Database from "better-sqlite3";
import type { BenchResult } from "../bench-result.js";
import { median } from "../median.js";
import { ratioRow } from "../ratio-row.js";
import type { Scenario } from "../scenario.js";
import { loadSenderApi } from "../sender-api.js";
import { skippedRows } from "./skipped-rows.js";

const NAME = "store.events";
const EVENTS = 10_000;
const PAGE = 100;
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

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
 * Issue 40: catching up on 10,000 retained events of one endpoint (of two, each receiving every message)
 * page by page through `Outbox.listEvents` (each event signed), beside reading the same rows (message id,
 * webhook id, type, body, time) from the SQLite file directly in one statement.
 */
export const storeEvents: Scenario = {
  name: NAME,
  description: `An endpoint's ${EVENTS} retained events listed page by page (${PAGE} a page, each signed), beside reading the same rows from SQLite directly`,
  async run(context) {
    const names = [`${NAME}.direct-read`, `${NAME}.list-pages`];
    let sender: Awaited<ReturnType<typeof loadSenderApi>>;
    try {
      sender = await loadSenderApi();
    } catch (error) {
      return skippedRows(names, (error as Error).message);
    }
    const file = join(context.tempDir(), "events.db");
    const outbox = sender.createSqliteOutbox(file) as unknown as EventsOutbox;
    const listEvents = outbox.listEvents?.bind(outbox);
    if (listEvents === undefined) {
      await outbox.close();
      return skippedRows(names, "@plant-store/sender has no Outbox.listEvents");
    }
    let direct: number;
    let pages: number;
    try {
      const { id } = await outbox.addEndpoint({
        url: "http://127.0.0.1:9/a",
        token: "bench-token",
        secrets: [SECRET],
      });
      await outbox.addEndpoint({ url: "http://127.0.0.1:9/b", token: "bench-token", secrets: [SECRET] });
      for (let from = 0; from < EVENTS; from += 500)
        await outbox.enqueueMany(
          Array.from({ length: 500 }, (_, index) => ({
            eventType: "newPlant",
            payload: { id: from + index, name: `Plant ${from + index}` },
          })),
        );
      const db = new Database(file, { readonly: true });
      const read = db.prepare(
        `SELECT d.message_id, m.webhook_id, m.event_type, m.payload, m.created_at
         FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
         WHERE d.endpoint_id = ? ORDER BY d.message_id`,
      );
      const listAll = async () => {
        let after: string | undefined;
        let listed = 0;
        for (;;) {
          const page = await listEvents(id, { limit: PAGE, ...(after === undefined ? {} : { after }) });
          if (!page || page.events.length === 0 || page.next === null) break;
          listed += page.events.length;
          after = page.next;
        }
        if (listed !== EVENTS) throw new Error(`listed ${listed} events, not ${EVENTS}`);
      };
      const timings = { direct: [] as number[], pages: [] as number[] };
      // One warm-up of each, then the measured runs, interleaved so both see the same machine.
      read.all(id);
      await listAll();
      for (let run = 0; run < context.runs; run++) {
        let started = performance.now();
        if (read.all(id).length !== EVENTS) throw new Error("the direct read missed events");
        timings.direct.push(performance.now() - started);
        started = performance.now();
        await listAll();
        timings.pages.push(performance.now() - started);
      }
      db.close();
      direct = median(timings.direct);
      pages = median(timings.pages);
      context.log(`${NAME}: direct ${direct.toFixed(1)} ms, ${EVENTS / PAGE} pages ${pages.toFixed(1)} ms`);
    } finally {
      await outbox.close();
    }
    const results: BenchResult[] = [
      ratioRow(`${NAME}.direct-read`, direct, "ms", undefined, `${EVENTS} rows of one endpoint, one SELECT`),
      ratioRow(
        `${NAME}.list-pages`,
        pages,
        "ms",
        { name: `${NAME}.direct-read`, value: direct },
        `the same events through listEvents, ${PAGE} a page, each signed (issue 40 asks for ratio ≤ 2)`,
      ),
    ];
    return results;
  },
};
