import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidTraceparentError } from "./invalid-traceparent-error.js";
import { formatTraceparent, parseTraceparent } from "./traceparent.js";

// The example of the W3C Trace Context recommendation, section 3.2.
const EXAMPLE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("parseTraceparent", () => {
  it("reads the specification's example", () => {
    expect(parseTraceparent(EXAMPLE)).toEqual({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      parentId: "00f067aa0ba902b7",
      flags: 1,
    });
    expect(parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")?.flags).toBe(0);
  });

  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["upper-case hex", EXAMPLE.toUpperCase()],
    ["a short trace id", "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01"],
    ["a long parent id", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b70-01"],
    ["an all-zero trace id", `00-${"0".repeat(32)}-00f067aa0ba902b7-01`],
    ["an all-zero parent id", `00-4bf92f3577b34da6a3ce929d0e0e4736-${"0".repeat(16)}-01`],
    ["version ff", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"],
    ["extra fields on version 00", `${EXAMPLE}-what`],
    ["a non-hex character", "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01"],
    ["spaces inside", "00-4bf92f3577b34da6a3ce929d0e0e4736 -00f067aa0ba902b7-01"],
    ["a later version glued to more text", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x"],
  ])("ignores %s", (_name, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });

  it("reads the first four fields of a later version, with or without more after a dash", () => {
    const expected = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", parentId: "00f067aa0ba902b7", flags: 3 };
    expect(parseTraceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03")).toEqual(expected);
    expect(parseTraceparent("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03-future")).toEqual(
      expected,
    );
  });
});

describe("formatTraceparent", () => {
  it("writes version 00 with two-digit flags", () => {
    expect(
      formatTraceparent({
        traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
        parentId: "00f067aa0ba902b7",
        flags: 1,
      }),
    ).toBe(EXAMPLE);
  });

  it("round-trips every valid header", () => {
    const hex = (length: number) =>
      fc
        .string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: length, maxLength: length })
        .filter((id) => /[1-9a-f]/.test(id));
    fc.assert(
      fc.property(hex(32), hex(16), fc.integer({ min: 0, max: 255 }), (traceId, parentId, flags) => {
        const parts = { traceId, parentId, flags };
        expect(parseTraceparent(formatTraceparent(parts))).toEqual(parts);
      }),
    );
  });

  it("refuses what no receiver would accept, with a stable code", () => {
    const good = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", parentId: "00f067aa0ba902b7", flags: 1 };
    for (const bad of [
      { ...good, traceId: "0".repeat(32) },
      { ...good, parentId: "ABCDEF0123456789" },
      { ...good, flags: 256 },
      { ...good, flags: 1.5 },
    ]) {
      expect(() => formatTraceparent(bad)).toThrow(InvalidTraceparentError);
    }
    expect(() => formatTraceparent({ ...good, flags: -1 })).toThrow(
      expect.objectContaining({ code: "ERR_INVALID_TRACEPARENT" }),
    );
  });
});
