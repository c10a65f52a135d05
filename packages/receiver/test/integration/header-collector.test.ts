import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { openRaw } from "@plant-store/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHeaderCollector } from "../../src/create-header-collector.js";

const wanted = ["authorization", "content-type", "webhook-id", "webhook-timestamp", "webhook-signature"];
const collect = createHeaderCollector(wanted);

/** What `req.headersDistinct` holds for the wanted names: the reference the collector must match. */
function fromDistinct(distinct: IncomingHttpHeaders | Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of wanted) {
    const copies = (distinct as Record<string, string[] | undefined>)[name];
    if (copies !== undefined) out[name] = copies;
  }
  return out;
}

/** The collector's record as `headersDistinct` would have it: one copy as a one-item array, absent ones left out. */
function asDistinct(collected: Record<string, string | string[] | undefined>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, copies] of Object.entries(collected)) {
    if (copies !== undefined) out[name] = typeof copies === "string" ? [copies] : copies;
  }
  return out;
}

describe("createHeaderCollector against Node's own headersDistinct", () => {
  let server: Server;
  let url: string;
  const seen: {
    raw: Record<string, string | string[] | undefined>;
    collected: Record<string, string[]>;
    distinct: Record<string, string[]>;
  }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const raw = collect(req.rawHeaders);
      seen.push({
        raw,
        collected: asDistinct(raw),
        distinct: fromDistinct(req.headersDistinct),
      });
      res.writeHead(204, { connection: "close" }).end();
    });
    server.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server.once("listening", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );

  // Names in any case, repeated or not, empty values, and look-alikes of the same length.
  const name = fc
    .constantFrom(...wanted, "x-webhook-idd", "content-typf", "authorisation", "webhook-idx", "x-other")
    .chain((base) =>
      fc
        .array(fc.boolean(), { minLength: base.length, maxLength: base.length })
        .map((upper) => [...base].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join("")),
    );
  const value = fc.stringMatching(/^[!-~]([ !-~]{0,30}[!-~])?$/).map((v) => v);
  const header = fc.tuple(name, fc.oneof(value, fc.constant("")));

  it("finds every copy of each wanted header, in order, whatever its case", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(header, { maxLength: 12 }), async (headers) => {
        seen.length = 0;
        const lines = [
          "GET / HTTP/1.1",
          "Host: 127.0.0.1",
          ...headers.map(([n, v]) => `${n}: ${v}`),
          "Connection: close",
        ];
        const { socket, answer } = await openRaw(url);
        socket.end(`${lines.join("\r\n")}\r\n\r\n`);
        expect((await answer).status).toBe(204);
        expect(seen).toHaveLength(1);
        expect(seen[0]?.collected).toEqual(seen[0]?.distinct);
        // A header sent once is its string; only a repeated one is an array.
        for (const [name, copies] of Object.entries(seen[0]?.distinct ?? {})) {
          expect(seen[0]?.raw[name]).toEqual(copies.length === 1 ? copies[0] : copies);
        }
      }),
      { numRuns: 60 },
    );
  });
});
