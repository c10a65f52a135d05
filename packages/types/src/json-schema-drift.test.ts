import { componentJsonSchema } from "@plant-store/spec";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { contractSchemas } from "../test/contract-schemas.js";
import { normaliseJsonSchema } from "../test/normalise-json-schema.js";

describe("zod's JSON Schema equals the spec's component schema after normalising", () => {
  it.each(contractSchemas)("%s", (name, schema) => {
    expect(normaliseJsonSchema(z.toJSONSchema(schema))).toStrictEqual(
      normaliseJsonSchema(componentJsonSchema(name)),
    );
  });

  it("notices a drifted schema (an unbounded name instead of a non-empty one)", () => {
    const drifted = z.looseObject({ name: z.string(), tag: z.string().optional() });
    expect(normaliseJsonSchema(z.toJSONSchema(drifted))).not.toStrictEqual(
      normaliseJsonSchema(componentJsonSchema("Plant")),
    );
  });

  it("matches the committed snapshot of what zod emits (review changes to it like code)", async () => {
    const emitted = Object.fromEntries(
      contractSchemas.map(([name, schema]) => [name, z.toJSONSchema(schema)]),
    );
    await expect(`${JSON.stringify(emitted, null, 2)}\n`).toMatchFileSnapshot(
      "./__snapshots__/zod-json-schemas.json.snap",
    );
  });
});

describe("normaliseJsonSchema", () => {
  it("merges the spec's allOf into one object schema", () => {
    expect(normaliseJsonSchema(componentJsonSchema("NewPlant"))).toStrictEqual({
      type: "object",
      properties: {
        name: { type: "string", minLength: 1, maxLength: 200, pattern: "^[^\\u0000]*$" },
        tag: { type: "string", maxLength: 100, pattern: "^[^\\u0000]*$" },
        id: { type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
      },
      required: ["id", "name"],
      additionalProperties: true,
    });
  });

  it("refuses to merge an allOf whose parts define the same property", () => {
    const clash = { allOf: [{ properties: { a: {} } }, { properties: { a: { type: "string" } } }] };
    expect(() => normaliseJsonSchema(clash)).toThrow(/defined twice/);
  });
});
