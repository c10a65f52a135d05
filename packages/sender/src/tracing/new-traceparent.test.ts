import { parseTraceparent } from "@plant-store/types";
import { describe, expect, it } from "vitest";
import { newTraceparent } from "./new-traceparent.js";

describe("newTraceparent", () => {
  it("makes valid, sampled headers with ids never seen before, across many draws of the random source", () => {
    // 1,000 headers span several refills of the ids drawn ahead.
    const headers = Array.from({ length: 1_000 }, () => newTraceparent());
    for (const header of headers) {
      expect(header).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(parseTraceparent(header)).toMatchObject({ flags: 1 });
    }
    expect(new Set(headers.map((h) => parseTraceparent(h)?.traceId)).size).toBe(headers.length);
    expect(new Set(headers.map((h) => parseTraceparent(h)?.parentId)).size).toBe(headers.length);
  });
});
