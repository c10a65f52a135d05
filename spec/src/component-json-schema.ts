import { openapi } from "./openapi.js";

/** The names of the schemas under `components.schemas`. */
export type ComponentSchemaName = keyof typeof openapi.components.schemas;

const REF_PREFIX = "#/components/schemas/";

/**
 * A component schema as a standalone JSON Schema (draft 2020-12) document, with every
 * `$ref` to another component inlined, so any JSON Schema validator (ajv, ...) can use it.
 * OpenAPI 3.1 schemas are JSON Schema 2020-12; only the `$ref` targets need rewriting.
 */
export function componentJsonSchema(name: ComponentSchemaName): Record<string, unknown> {
  const inlined = inline(openapi.components.schemas[name], [name]);
  return { $schema: "https://json-schema.org/draft/2020-12/schema", ...(inlined as Record<string, unknown>) };
}

function inline(value: unknown, seen: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => inline(item, seen));
  if (value === null || typeof value !== "object") return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === "string" && ref.startsWith(REF_PREFIX)) {
    const target = ref.slice(REF_PREFIX.length);
    if (seen.includes(target) || !(target in openapi.components.schemas)) {
      // The contract has no recursive schemas; a cycle or a dangling ref is a broken document.
      throw new Error(`Cannot inline ${ref} (from ${seen.join(" > ")})`);
    }
    return inline(openapi.components.schemas[target as ComponentSchemaName], [...seen, target]);
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, inline(item, seen)]));
}
