import { describe, expect, it } from "vitest";
import { componentJsonSchema } from "../src/component-json-schema.js";
import { openapi } from "../src/openapi.js";
import { createAjv } from "./ajv.js";

interface Example {
  where: string;
  schema: unknown;
  value: unknown;
}

const REF_PREFIX = "#/components/schemas/";

/** A schema ready for ajv: every component `$ref`, at any depth, becomes the inlined component. */
function standalone(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(standalone);
  if (schema === null || typeof schema !== "object") return schema;
  const ref = (schema as { $ref?: string }).$ref;
  if (ref?.startsWith(REF_PREFIX)) {
    const { $schema: _, ...component } = componentJsonSchema(
      ref.slice(REF_PREFIX.length) as Parameters<typeof componentJsonSchema>[0],
    );
    return component;
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, standalone(value)]));
}

/**
 * Every example in the document next to the schema it illustrates: `example`/`examples` on
 * parameters, headers and media types, and `examples` arrays inside schemas (at any depth).
 */
function collectExamples(node: unknown, where: string, out: Example[]): Example[] {
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      collectExamples(item, `${where}/${i}`, out);
    });
    return out;
  }
  if (node === null || typeof node !== "object") return out;
  const record = node as Record<string, unknown>;
  if ("schema" in record) {
    if ("example" in record) out.push({ where, schema: record.schema, value: record.example });
    if (record.examples && typeof record.examples === "object" && !Array.isArray(record.examples)) {
      for (const [name, example] of Object.entries(record.examples)) {
        out.push({
          where: `${where}/examples/${name}`,
          schema: record.schema,
          value: (example as { value: unknown }).value,
        });
      }
    }
  }
  const isSchema = "type" in record || "allOf" in record;
  if (isSchema && Array.isArray(record.examples)) {
    record.examples.forEach((value, i) => {
      out.push({ where: `${where}/examples/${i}`, schema: record, value });
    });
  }
  for (const [key, value] of Object.entries(record)) {
    if (key !== "examples" && key !== "example") collectExamples(value, `${where}/${key}`, out);
  }
  return out;
}

const examples = collectExamples(openapi, "#", []);

describe("examples in the document", () => {
  it("exist for the payload, every error answer and every header", () => {
    const places = examples.map((e) => e.where);
    expect(places).toContain(
      "#/webhooks//plant/webhook/post/requestBody/content/application/json/examples/withTag",
    );
    for (const status of ["400", "401", "413", "415", "500"]) {
      expect(places).toContain(`#/webhooks//plant/webhook/post/responses/${status}/content/application/json`);
    }
    expect(places.filter((p) => p.includes("/parameters/"))).toHaveLength(4);
    expect(examples.length).toBeGreaterThan(15);
  });

  it.each(examples.map((e) => [e.where, e] as const))("%s matches its schema", (_where, example) => {
    const validate = createAjv().compile(standalone(example.schema) as object);
    expect(validate(example.value), JSON.stringify(validate.errors)).toBe(true);
  });

  it("a wrong example is caught by the same check", () => {
    const validate = createAjv().compile(standalone({ $ref: "#/components/schemas/NewPlant" }) as object);
    expect(validate({ id: 1.5, name: "" })).toBe(false);
  });
});
