import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildSchemaValue, UnbuildableSchemaError } from "./build-schema-value.js";

const document = {
  components: {
    schemas: {
      Money: {
        type: "object",
        required: ["amount", "currency"],
        properties: { amount: { type: "integer", minimum: 1 }, currency: { enum: ["EUR", "USD"] } },
      },
      Node: {
        type: "object",
        required: ["name"],
        properties: {
          name: { type: "string" },
          children: { type: "array", items: { $ref: "#/components/schemas/Node" } },
        },
      },
      Loop: {
        type: "object",
        required: ["next"],
        properties: { next: { $ref: "#/components/schemas/Loop" } },
      },
    },
  },
};

/** What the toolkit's catalog would make of the schema: the judge of every built value. */
const accepts = (schema: object, value: unknown) =>
  z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(value).success;

describe("buildSchemaValue", () => {
  it.each<[string, object, unknown]>([
    ["const", { const: "order.created" }, "order.created"],
    ["the first of an enum", { type: "string", enum: ["dhl", "ups"] }, "dhl"],
    ["the schema's own example", { type: "string", examples: ["given"] }, "given"],
    ["date-time", { type: "string", format: "date-time" }, "2026-01-15T09:30:00Z"],
    ["email", { type: "string", format: "email" }, "team@example.com"],
    ["uuid", { type: "string", format: "uuid" }, "3fa85f64-5717-4562-b3fc-2c963f66afa6"],
    ["a simple pattern", { type: "string", pattern: "^ORD-[0-9]{6}$" }, "ORD-000000"],
    ["a string within its lengths", { type: "string", minLength: 10, maxLength: 12 }, "examplexxx"],
    ["a short string", { type: "string", maxLength: 3 }, "exa"],
    ["an integer at its minimum", { type: "integer", minimum: 7 }, 7],
    ["an integer past an exclusive minimum", { type: "integer", exclusiveMinimum: 7 }, 8],
    ["a multiple", { type: "integer", minimum: 10, multipleOf: 4 }, 12],
    ["a number under its maximum", { type: "number", maximum: 0.25 }, 0],
    ["a nullable type's other type", { type: ["null", "boolean"] }, true],
    ["an array of its least items", { type: "array", minItems: 2, items: { type: "integer" } }, [1, 1]],
  ])("%s", (_, schema, expected) => {
    const value = buildSchemaValue(schema, document);
    expect(value).toStrictEqual(expected);
    expect(accepts(schema, value)).toBe(true);
  });

  it("builds only the required properties of an object, through $ref and allOf", () => {
    const schema = {
      allOf: [
        { $ref: "#/components/schemas/Money" },
        {
          type: "object",
          required: ["note"],
          properties: { note: { type: "string" }, extra: { type: "string" } },
        },
      ],
    };
    expect(buildSchemaValue(schema, document)).toStrictEqual({ amount: 1, currency: "EUR", note: "example" });
  });

  it("takes the first branch of a oneOf", () => {
    expect(
      buildSchemaValue({ oneOf: [{ type: "string", format: "date" }, { type: "integer" }] }, document),
    ).toBe("2026-01-15");
  });

  it("ends a recursive schema where nothing more is required", () => {
    expect(buildSchemaValue({ $ref: "#/components/schemas/Node" }, document)).toStrictEqual({
      name: "example",
    });
  });

  it("throws, naming the field, where it cannot build a value", () => {
    expect(() => buildSchemaValue({ $ref: "#/components/schemas/Loop" }, document)).toThrow(
      UnbuildableSchemaError,
    );
    expect(() =>
      buildSchemaValue(
        {
          type: "object",
          required: ["code"],
          properties: { code: { type: "string", pattern: "^(?=x)\\w+$" } },
        },
        document,
      ),
    ).toThrow("code: its pattern ^(?=x)\\w+$ is not one the kit can follow");
    expect(() => buildSchemaValue({ type: "integer", minimum: 3, maximum: 2 }, document)).toThrow(
      "the payload: no number fits its bounds and multipleOf",
    );
    expect(() => buildSchemaValue({ $ref: "#/components/schemas/Nope" }, document)).toThrow(
      '"#/components/schemas/Nope" names nothing in the document',
    );
  });
});
