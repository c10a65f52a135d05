import { PLANT_STORE_WEBHOOKS } from "@plant-store/types";
import { describe, expect, it } from "vitest";
import { InvalidEndpointFilterError } from "../errors.js";
import { compiledFilter, compileEndpointFilter, toFilterInput } from "./compile-endpoint-filter.js";

const monstera = toFilterInput("newPlant", { id: 1, name: "Monstera", tag: "tropical", tags: ["big"] });
const cactus = toFilterInput("newPlant", { id: 2, name: "Mammillaria", tag: "desert" });
const untagged = toFilterInput("newPlant", { id: 3, name: "Moss" });

/** The error a filter is refused with. */
function refusal(source: string): InvalidEndpointFilterError {
  try {
    compileEndpointFilter(source);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidEndpointFilterError);
    return error as InvalidEndpointFilterError;
  }
  throw new Error(`${source} was accepted`);
}

describe("compileEndpointFilter", () => {
  it("passes the messages its expression makes true, over eventType and payload", () => {
    const filter = compileEndpointFilter(`payload.tag == "tropical" && payload.name.startsWith("M")`);
    expect(filter.matches(monstera)).toBe(true);
    expect(filter.matches(cactus)).toBe(false);
    expect(compileEndpointFilter(`eventType == "newPlant"`).matches(cactus)).toBe(true);
    expect(compileEndpointFilter(`eventType == "newPlant"`).matches({ ...cactus, eventType: null })).toBe(
      false,
    );
    expect(compileEndpointFilter(`"big" in payload.tags`).matches(monstera)).toBe(true);
    expect(compileEndpointFilter("payload.id == 1").matches(monstera)).toBe(true);
    expect(compileEndpointFilter("payload.id > 1.5").matches(cactus)).toBe(true);
  });

  it("excludes a message the expression errors on (a field it lacks), as CEL's false would; has() tests presence", () => {
    expect(compileEndpointFilter(`payload.tag == "tropical"`).matches(untagged)).toBe(false);
    expect(compileEndpointFilter(`payload.tag != "tropical"`).matches(untagged)).toBe(false);
    expect(compileEndpointFilter("!has(payload.tag)").matches(untagged)).toBe(true);
    expect(compileEndpointFilter("has(payload.tag)").matches(monstera)).toBe(true);
    // Not a bool: excluded too.
    expect(compileEndpointFilter("payload.name").matches(monstera)).toBe(false);
  });

  it("refuses a syntax error, naming it and its line and column", () => {
    const error = refusal(`payload.tag == "tropical" &&\n  payload.name ==`);
    expect(error.message).toMatch(/^filter: syntax error: .+ \(at 2:\d+\)$/);
    expect(error.position?.line).toBe(2);
    expect(error.code).toBe("ERR_INVALID_ENDPOINT");
  });

  it("refuses an unknown function and an unknown variable where they are", () => {
    const fn = refusal(`payload.tag == "x" || lower(payload.name) == "m"`);
    expect(fn.message).toBe("filter: unknown function lower (at 1:23)");
    expect(fn.position).toEqual({ offset: 22, line: 1, column: 23 });
    expect(refusal(`payload.name.shout()`).message).toMatch(/^filter: unknown function shout \(at 1:\d+\)$/);
    expect(refusal(`plant.tag == "x"`).message).toBe(
      "filter: unknown variable plant (a filter sees eventType and payload) (at 1:1)",
    );
  });

  it("refuses the macros that loop, whose cost grows with the payload", () => {
    for (const source of [
      `payload.tags.exists(t, t == "big")`,
      `payload.tags.all(t, t != "")`,
      `payload.tags.exists_one(t, t == "big")`,
      "payload.tags.map(t, t).size() > 0",
      `payload.tags.filter(t, t == "big").size() > 0`,
    ])
      expect(refusal(source).message).toMatch(/macros that loop .* are refused/);
  });

  it("refuses, given the payload schemas, a comparison of a declared field with a constant of another type, where the constant is", () => {
    const payloadSchemas = [PLANT_STORE_WEBHOOKS.get("newPlant").schema];
    let error: unknown;
    try {
      compileEndpointFilter(`payload.tag == "tropical" && payload.id == "x"`, { payloadSchemas });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidEndpointFilterError);
    expect((error as Error).message).toBe(
      "filter: payload.id is a number in the payload schema of the event types this endpoint receives, compared with a string (at 1:44)",
    );
    expect(() => compileEndpointFilter(`"x" != payload.name && payload.tag > 3`, { payloadSchemas })).toThrow(
      /payload\.tag is a string .* compared with a number/,
    );
    // Fields of the right type, fields the schema does not declare, null: accepted.
    for (const source of [
      `payload.id == 7 && payload.name.startsWith("M") && payload.tag == "tropical"`,
      `payload.colour == "green"`,
      "payload.tag != null",
    ])
      expect(() => compileEndpointFilter(source, { payloadSchemas })).not.toThrow();
    // Without the schemas (an endpoint receiving every message): accepted, and false at run time.
    expect(compileEndpointFilter(`payload.id == "x"`).matches(monstera)).toBe(false);
  });

  it("refuses an empty filter and one over 4,096 characters", () => {
    expect(refusal("").message).toMatch(/must not be empty/);
    const long = `payload.name == "${"x".repeat(4080)}"`;
    expect(long.length).toBeGreaterThan(4096);
    expect(refusal(long).message).toMatch(/over the 4096 a filter may have/);
    expect(() => compileEndpointFilter(`payload.name == "${"x".repeat(4000)}"`)).not.toThrow();
  });

  it("judges a payload given as plain objects as it judges one made by toFilterInput", () => {
    const nested = { id: 4, name: "Monstera", tag: "tropical", care: { light: "bright", tags: ["x"] } };
    for (const source of [
      `payload.care.light == "bright"`,
      `has(payload.care.water)`,
      `"x" in payload.care.tags`,
      `payload.care.water == "daily"`,
    ]) {
      const filter = compileEndpointFilter(source);
      expect(filter.matches({ eventType: null, payload: nested }), source).toBe(
        filter.matches(toFilterInput(null, nested)),
      );
    }
    expect(compileEndpointFilter(`"x" in payload.care.tags`).matches(toFilterInput(null, nested))).toBe(true);
  });

  it("judges an input made by toFilterInput as the payload's own maps, keys with dots too", () => {
    const payload = { "a.b": 1, a: { b: 2, "c-d": 3 }, tag: "tropical", list: [{ name: "x" }] };
    const prepared = toFilterInput("newPlant", payload);
    const plain = { eventType: "newPlant", payload };
    const cases: Array<[source: string, passes: boolean]> = [
      [`payload["a.b"] == 1`, true],
      ["payload.a.b == 2", true],
      [`payload.a["c-d"] == 3`, true],
      [`payload["tag"] == "tropical"`, true],
      [`payload.list[0].name == "x"`, true],
      ["has(payload.a.b) && !has(payload.a.c)", true],
      ["payload.a.c == 2", false],
      [`eventType == "newPlant"`, true],
    ];
    for (const [source, passes] of cases) {
      const filter = compileEndpointFilter(source);
      expect(filter.matches(prepared), source).toBe(passes);
      expect(filter.matches(plain), source).toBe(passes);
    }
    // A copy with another event type or payload is judged by what it holds, not by what it was made from.
    const byType = compileEndpointFilter(`eventType == "newPlant"`);
    expect(byType.matches({ ...prepared, eventType: "other" })).toBe(false);
    const byTag = compileEndpointFilter(`payload.tag == "tropical"`);
    expect(byTag.matches({ ...prepared, payload: toFilterInput(null, { tag: "desert" }).payload })).toBe(
      false,
    );
  });

  it("compiles each expression once however often it is asked for", () => {
    const source = `payload.tag == "cached"`;
    expect(compiledFilter(source)).toBe(compiledFilter(source));
  });
});
