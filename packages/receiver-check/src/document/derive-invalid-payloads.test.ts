import { describe, expect, it } from "vitest";
import { deriveInvalidPayloads } from "./derive-invalid-payloads.js";

const document = {
  components: {
    schemas: {
      Money: {
        type: "object",
        required: ["amount", "currency"],
        properties: { amount: { type: "integer" }, currency: { type: "string", enum: ["EUR", "USD"] } },
      },
    },
  },
};
const schema = {
  type: "object",
  required: ["id", "total"],
  properties: {
    id: { type: "string" },
    total: { $ref: "#/components/schemas/Money" },
    lines: { type: "array", items: { type: "object", properties: { qty: { enum: [1, 2, 3] } } } },
  },
};

describe("deriveInvalidPayloads", () => {
  it("derives a required field missing, a wrong type and a value outside an enum, each changing one thing", () => {
    const valid = { id: "o-1", total: { amount: 5, currency: "USD" } };
    expect(deriveInvalidPayloads(schema, valid, document)).toStrictEqual([
      {
        kind: "required-missing",
        title: 'without the required "id"',
        value: { total: { amount: 5, currency: "USD" } },
      },
      {
        kind: "wrong-type",
        title: '"id" as integer 12345 (the schema says string)',
        value: { id: 12345, total: { amount: 5, currency: "USD" } },
      },
      {
        kind: "outside-enum",
        title: '"total.currency" set to "EUR-outside-enum", outside its enum',
        value: { id: "o-1", total: { amount: 5, currency: "EUR-outside-enum" } },
      },
    ]);
    // The valid payload itself is left as it was.
    expect(valid).toStrictEqual({ id: "o-1", total: { amount: 5, currency: "USD" } });
  });

  it("finds an enum inside an array, with a number outside a numeric enum", () => {
    const valid = { lines: [{ qty: 2 }] };
    const [, , outside] = deriveInvalidPayloads({ ...schema, required: [] }, valid, document);
    expect(outside).toStrictEqual({
      kind: "outside-enum",
      title: '"lines[0].qty" set to 4, outside its enum',
      value: { lines: [{ qty: 4 }] },
    });
  });

  it("says so when the schema gives nothing to derive from", () => {
    expect(deriveInvalidPayloads({}, "anything", document)).toStrictEqual([
      { kind: "required-missing", title: "the schema requires no field", value: undefined },
      { kind: "wrong-type", title: "the schema names no type", value: undefined },
      { kind: "outside-enum", title: "the schema has no enum", value: undefined },
    ]);
  });
});
